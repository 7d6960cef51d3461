package ledger

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault tests feed the reader broken, hostile and unusual files. Every
// case must end in either a clean *Error (one line, naming the file) or a
// correct read with warnings — never a panic or a hang — and analysis must
// leave the file byte-for-byte unchanged.

// faultLedger writes a ledger of n calls (issued + confirmed, an llm_call
// every third call) in one bulk transaction and returns its path.
func faultLedger(t *testing.T, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "ledger.db")
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Bulk(BulkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * time.Second)
		is, err := b.Append(Event{TS: ts, Kind: KindIssued, SessionID: "s1", ToolName: "terminal",
			CallID: fmt.Sprintf("c%d", i), ArgsJSON: fmt.Sprintf(`{"command":"echo %d %s"}`, i, strings.Repeat("x", i%300))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Append(Event{TS: ts.Add(time.Millisecond), Kind: KindConfirmed, SessionID: "s1", ToolName: "terminal", IssuedID: is.ID, ResultDigest: "ok"}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := b.Append(Event{TS: ts.Add(2 * time.Millisecond), Kind: KindLLMCall, SessionID: "s1", TokensIn: Int64(1000)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

type analysis struct {
	calls, events int
	recs          []Record
	warnings      []string
}

// analyze is what every analysis command does to a file: Open, Scan to
// the end, Close. It fails the test if the file changed.
func analyze(t *testing.T, path string, f Filter) (analysis, error) {
	t.Helper()
	before := sumIfExists(path)
	defer func() {
		if after := sumIfExists(path); after != before {
			t.Errorf("%s: analysis changed the file", path)
		}
	}()
	var a analysis
	r, err := Open(path)
	if err != nil {
		return a, err
	}
	defer r.Close()
	err = r.Scan(f, func(rec Record) error {
		if rec.Call != nil {
			a.calls++
		} else {
			a.events++
		}
		a.recs = append(a.recs, rec)
		return nil
	})
	a.warnings = r.Warnings()
	return a, err
}

func sumIfExists(path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(b)
}

// cleanError checks the error contract: a *Error whose one-line text
// starts with the path.
func cleanError(t *testing.T, path string, err error, wantSub string) {
	t.Helper()
	var le *Error
	if !errors.As(err, &le) {
		t.Fatalf("%s: error %T %q, want *ledger.Error", path, err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, path+": ") || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line starting with %q", msg, path+": ")
	}
	if wantSub != "" && !strings.Contains(msg, wantSub) {
		t.Fatalf("error %q lacks %q", msg, wantSub)
	}
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFaultTruncatedFiles(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile(faultLedger(t, dir, 1500))
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(full))
	whole, err := analyze(t, filepath.Join(dir, "ledger.db"), Filter{})
	if err != nil || whole.calls != 1500 {
		t.Fatalf("intact ledger: %d calls, %v", whole.calls, err)
	}
	for _, cut := range []int64{1, 16, 50, 99, 100, 101, 1024, 4095, 4096, 4097, 8192, n / 3, n / 2, n - 4096, n - 1} {
		path := writeFile(t, dir, fmt.Sprintf("cut-%d.db", cut), full[:cut])
		a, err := analyze(t, path, Filter{})
		if err != nil {
			t.Logf("cut at %d: %v", cut, err)
			cleanError(t, path, err, "")
			continue
		}
		t.Logf("cut at %d: read %d calls", cut, a.calls)
		// A cut that only lost trailing pages SQLite never needs may read:
		// then it must not invent calls.
		if a.calls > whole.calls {
			t.Errorf("cut at %d: %d calls from a truncated file, more than the %d written", cut, a.calls, whole.calls)
		}
	}
}

func TestFaultGarbageFiles(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	header := append([]byte("SQLite format 3\x00"), random(3*4096)...)
	// A valid header with a plausible page size and garbage pages.
	plausible := append([]byte(nil), header...)
	plausible[16], plausible[17], plausible[18], plausible[19] = 0x10, 0x00, 1, 1

	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty.db", nil, "not a ledger: empty file"},
		{"random-small.db", random(100), "not a SQLite database"},
		{"random-page.db", random(4096), "not a SQLite database"},
		{"random-big.db", random(50000), "not a SQLite database"},
		{"header-random.db", header, ""},
		{"header-plausible.db", plausible, ""},
		{"text.db", []byte("id,ts,tool\n1,2026-11-30,terminal\n"), "not a SQLite database"},
	}
	for _, c := range cases {
		path := writeFile(t, dir, c.name, c.data)
		_, err := analyze(t, path, Filter{})
		if err == nil {
			t.Errorf("%s: read without error", c.name)
			continue
		}
		cleanError(t, path, err, c.want)
	}
	// Not a file at all.
	_, err := analyze(t, dir, Filter{})
	cleanError(t, dir, err, "is a directory")
	missing := filepath.Join(dir, "missing.db")
	_, err = analyze(t, missing, Filter{})
	cleanError(t, missing, err, "no such file")
}

func TestFaultSQLiteButNotALedger(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, sql, want string
	}{
		{"other.db", `CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('hi')`, "not a ledger: no events table"},
		{"bare.db", `PRAGMA user_version = 3`, "not a ledger: SQLite database with no tables"},
		{"events-unversioned.db", `CREATE TABLE events(id INTEGER PRIMARY KEY, ts TEXT)`, "not a ledger: an events table without a ledger-audit schema version"},
		{"events-partial.db", `CREATE TABLE events(id INTEGER PRIMARY KEY, ts TEXT); PRAGMA user_version = 1`, "events table lacks column"},
		{"ledger-wrong-shape.db", `CREATE TABLE ledger(a TEXT, b TEXT)`, "not a ledger: table `ledger` lacks"},
	} {
		path := filepath.Join(dir, c.name)
		rawSQL(t, path, c.sql)
		_, err := analyze(t, path, Filter{})
		cleanError(t, path, err, c.want)
	}
}

func TestFaultFutureSchemaVersion(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 3)
	rawSQL(t, path, `PRAGMA user_version = 99`)
	_, err := analyze(t, path, Filter{})
	cleanError(t, path, err, "ledger schema version 99 is newer than this ledger-audit supports")
	if _, err := OpenWriter(path, WriterOptions{}); err == nil {
		t.Fatal("writer accepted a future schema version")
	}
}

// holdLock starts a python3 process that takes an exclusive write lock on
// path and writes one row it never commits, and returns once it holds it.
func holdLock(t *testing.T, path string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: cannot hold a lock from another process")
	}
	script := `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO events(id, ts, kind) VALUES (1000000, '2026-12-01T00:00:00.000Z', 'issued')")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
`
	cmd := exec.Command(py, "-c", script, path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("python lock holder: %q %v", line, err)
	}
}

// withDeadline fails the test instead of hanging if fn does not return.
func withDeadline(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %s: the reader must never hang on a locked ledger", d)
	}
}

func TestFaultLockedRollbackJournalLedger(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 20)
	rawSQL(t, path, `PRAGMA journal_mode = DELETE`)
	holdLock(t, path)
	old := readBusyTimeout
	readBusyTimeout = 300 * time.Millisecond
	defer func() { readBusyTimeout = old }()
	withDeadline(t, 20*time.Second, func() {
		r, err := Open(path)
		if err == nil {
			// Open may get in before the lock matters; Scan may not.
			err = r.Scan(Filter{}, func(Record) error { return nil })
			r.Close()
		}
		if err == nil {
			t.Error("read a ledger another process holds exclusively")
			return
		}
		cleanError(t, path, err, "locked by another process")
	})
}

func TestFaultLockedWALLedgerReadsSnapshot(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 20)
	holdLock(t, path)
	withDeadline(t, 20*time.Second, func() {
		r, err := Open(path)
		if err != nil {
			t.Error(err)
			return
		}
		defer r.Close()
		calls := 0
		if err := r.Scan(Filter{}, func(rec Record) error {
			if rec.Call != nil {
				calls++
			}
			return nil
		}); err != nil {
			t.Error(err)
		}
		// The uncommitted row of the lock holder is not in the snapshot.
		if calls != 20 {
			t.Errorf("%d calls, want the 20 committed", calls)
		}
	})
}

// readOnlyDir returns a directory holding a copy of src that nobody may
// write to: a read-only tmpfs when running as root (root ignores mode
// bits), a 0555 directory otherwise.
func readOnlyDir(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		writeFile(t, dir, "ledger.db", data)
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("running as root and cannot mount a tmpfs (%v): no way to make a directory read-only", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	writeFile(t, dir, "ledger.db", data)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, "size=16m"); err != nil {
		t.Skipf("cannot remount the tmpfs read-only: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600); err == nil {
		t.Fatal("the read-only directory is writable")
	}
	return dir
}

func TestFaultReadOnlyDirectory(t *testing.T) {
	src := faultLedger(t, t.TempDir(), 30) // WAL mode, no -wal file left
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "delete" {
				rawSQL(t, src, `PRAGMA journal_mode = DELETE`)
			}
			path := filepath.Join(readOnlyDir(t, src), "ledger.db")
			a, err := analyze(t, path, Filter{})
			if err != nil {
				t.Fatalf("reading from a read-only directory: %v", err)
			}
			if a.calls != 30 {
				t.Fatalf("%d calls, want 30", a.calls)
			}
			if v, err := Verify(path, nil); err != nil || !v.OK() {
				t.Fatalf("verify in a read-only directory: %v %+v", err, v.Break)
			}
		})
	}
}

// fillDisk appends rows with 2 KB arguments until the writer fails, and
// returns how many appends were acknowledged and the error that stopped it.
func fillDisk(path string, limit int) (int, error) {
	w, err := OpenWriter(path, WriterOptions{})
	if err != nil {
		return 0, err
	}
	defer w.Close()
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	args := `{"content":"` + strings.Repeat("y", 2000) + `"}`
	for i := 0; i < limit; i++ {
		if _, err := w.Append(Event{TS: t0.Add(time.Duration(i) * time.Second), Kind: KindIssued, SessionID: "s1",
			ToolName: "write_file", CallID: fmt.Sprintf("c%d", i), ArgsJSON: args}); err != nil {
			return i, err
		}
	}
	return limit, nil
}

// checkSurvivors is the capture guarantee: every acknowledged row is still
// there, readable, and the chain verifies.
func checkSurvivors(t *testing.T, path string, acked int) {
	t.Helper()
	a, err := analyze(t, path, Filter{})
	if err != nil {
		t.Fatalf("reading after the disk filled: %v", err)
	}
	if a.calls < acked {
		t.Fatalf("%d calls readable, %d were acknowledged: rows lost", a.calls, acked)
	}
	if v, err := Verify(path, nil); err != nil || !v.OK() {
		t.Fatalf("chain after the disk filled: %v %+v", err, v.Break)
	}
}

func TestFaultFullDiskTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tiny tmpfs needs root; TestFaultFullDiskRlimit covers the writer")
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	os.Mkdir(dir, 0o755)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	path := filepath.Join(dir, "ledger.db")
	acked, err := fillDisk(path, 100000)
	if err == nil {
		t.Fatal("a 256 KB file system never filled")
	}
	if acked == 0 {
		t.Fatalf("nothing written before the disk filled: %v", err)
	}
	t.Logf("tmpfs full after %d appends: %s", acked, describe(err))
	if !strings.Contains(describe(err), "full") && !strings.Contains(describe(err), "I/O") {
		t.Errorf("unclear error for a full disk: %v", describe(err))
	}
	checkSurvivors(t, path, acked)
}

// The portable variant: a child process with a file-size limit. The Go
// runtime ignores SIGXFSZ, so writes past the limit fail with EFBIG.
func TestFaultFullDiskRlimit(t *testing.T) {
	if path := os.Getenv("LEDGER_FAULT_FSIZE_CHILD"); path != "" {
		lim := syscall.Rlimit{Cur: 192 << 10, Max: 192 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			fmt.Println("setrlimit failed:", err)
			os.Exit(3)
		}
		acked, err := fillDisk(path, 100000)
		fmt.Printf("acked %d\nerr %v\n", acked, err)
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultFullDiskRlimit$")
	cmd.Env = append(os.Environ(), "LEDGER_FAULT_FSIZE_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("child with a file-size limit did not run (%v): %s", err, out)
	}
	var acked int
	var childErr string
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "acked "); ok {
			acked, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(line, "err "); ok {
			childErr = v
		}
	}
	if childErr == "" || childErr == "<nil>" || acked == 0 {
		t.Fatalf("expected the writer to fail after some rows: %s", out)
	}
	t.Logf("file-size limit hit after %d appends: %s", acked, childErr)
	checkSurvivors(t, path, acked)
}

// foreignRows inserts rows the way a careless foreign writer might: raw
// SQL, no hashing, odd values in every column.
func TestFaultForeignWriterRowsInEventsTable(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 2) // ids 1-5 are ours
	big := strings.Repeat("A", 1<<20)
	rawSQL(t, path,
		// invalid JSON
		`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json) VALUES (10, '2026-11-30T09:00:00.000Z', 'issued', 's2', 'terminal', '{"command": "ls')`,
		// invalid UTF-8 in args and session
		`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json) VALUES (11, '2026-11-30T09:00:01.000Z', 'issued', CAST(X'73FF32' AS TEXT), 'terminal', CAST(X'7B2263223A2241FE42227D' AS TEXT))`,
		// NUL bytes
		`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json) VALUES (12, '2026-11-30T09:00:02.000Z', 'issued', 's2', 'terminal', '{"command":"a' || char(0) || 'b"}')`,
		// 1 MB of arguments
		`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json) VALUES (13, '2026-11-30T09:00:03.000Z', 'issued', 's2', 'write_file', '{"content":"`+big+`"}')`,
		// text where integers belong, a blob tool name
		`INSERT INTO events(id, ts, kind, session_id, tool_name, args_json, duration_ms, tokens_in, args_truncated) VALUES (14, '2026-11-30T09:00:04.000Z', 'llm_call', 's2', X'6D6F64656C', '', 'slow', 12.0, 'yes')`,
		// other timestamp shapes, one of them running backwards
		`INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (15, '2026-11-30 09:00:05', 'issued', 's2', 'patch')`,
		`INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (16, '2026-11-30T11:00:06+02:00', 'issued', 's2', 'patch')`,
		`INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (17, 1796029207, 'issued', 's2', 'patch')`,
		`INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (18, '2026-11-29T00:00:00.000Z', 'issued', 's2', 'patch')`,
		`INSERT INTO events(id, ts, kind, session_id, tool_name) VALUES (19, 'last tuesday', 'issued', 's2', 'patch')`,
		// an outcome pointing nowhere, and one with an unknown kind
		`INSERT INTO events(id, ts, kind, session_id, tool_name, issued_id) VALUES (20, '2026-11-30T09:00:10.000Z', 'confirmed', 's2', 'patch', 999)`,
		`INSERT INTO events(id, ts, kind, session_id) VALUES (21, '2026-11-30T09:00:11.000Z', 'teleported', 's2')`,
	)
	a, err := analyze(t, path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]Record{}
	for _, r := range a.recs {
		if r.Call != nil {
			byID[r.Call.ID] = r
		} else {
			byID[r.Event.ID] = r
		}
	}
	call := func(id int64) *Call {
		t.Helper()
		r, ok := byID[id]
		if !ok || r.Call == nil {
			t.Fatalf("row %d not read as a call", id)
		}
		return r.Call
	}
	if c := call(10); c.Args != `{"command": "ls` {
		t.Errorf("invalid JSON args changed: %q", c.Args)
	}
	if c := call(11); c.Args != "{\"c\":\"A\uFFFDB\"}" || c.SessionID != "s\uFFFD2" {
		t.Errorf("invalid UTF-8 not repaired: %q %q", c.Args, c.SessionID)
	}
	if c := call(12); c.Args != "{\"command\":\"a\x00b\"}" {
		t.Errorf("NUL byte lost: %q", c.Args)
	}
	if c := call(13); len(c.Args) != MaxArgsChars || !c.ArgsTruncated {
		t.Errorf("1 MB args: %d chars, truncated=%v", len(c.Args), c.ArgsTruncated)
	}
	if e := byID[14].Event; e == nil || e.DurationMS != nil || e.TokensIn == nil || *e.TokensIn != 12 || e.ToolName != "model" || e.ArgsTruncated {
		t.Errorf("odd integer columns: %+v", e)
	}
	wantTS := map[int64]string{15: "2026-11-30T09:00:05Z", 16: "2026-11-30T09:00:06Z", 17: "2026-11-30T09:00:07Z", 18: "2026-11-29T00:00:00Z"}
	for id, want := range wantTS {
		if got := call(id).TS.Format(time.RFC3339); got != want {
			t.Errorf("row %d ts %s, want %s", id, got, want)
		}
	}
	if !call(19).TS.IsZero() {
		t.Errorf("unreadable ts parsed as %v", call(19).TS)
	}
	if _, ok := byID[20]; ok {
		t.Error("an orphan outcome was streamed as a record")
	}
	if e := byID[21].Event; e == nil || e.Kind != "teleported" {
		t.Error("unknown kind not passed through as an event")
	}
	warnings := strings.Join(a.warnings, "\n")
	for _, want := range []string{
		"row 11: text is not valid UTF-8",
		"row 13: arguments are 1048590 bytes, over the 4000-character cap; truncated",
		`row 14: duration_ms holds "slow", not an integer`,
		`row 14: args_truncated holds "yes"`,
		`row 19: unreadable timestamp "last tuesday"`,
		"have a timestamp earlier than the row before them",
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
	// A window over mixed timestamp shapes: the SQL prefilter must not
	// drop rows whose ts text does not sort like the canonical shape.
	w, err := analyze(t, path, Filter{Since: time.Date(2026, 11, 30, 9, 0, 4, 0, time.UTC), Session: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range w.recs {
		if r.Call != nil {
			got = append(got, r.Call.ID)
		}
	}
	if fmt.Sprint(got) != "[15 16 17]" {
		t.Errorf("windowed calls %v, want [15 16 17]", got)
	}
	// The chain check names the first foreign row.
	if v, err := Verify(path, nil); err != nil || v.Break == nil || v.Break.Row != 10 {
		t.Errorf("verify: %v %+v", err, v.Break)
	}
}

func TestFaultForeignAgentLedgerRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	big := strings.Repeat("B", 1<<20)
	rawSQL(t, path,
		`CREATE TABLE ledger(id INTEGER PRIMARY KEY, ts TEXT, session_id TEXT, tool_name TEXT, status TEXT, args_json TEXT)`,
		`INSERT INTO ledger VALUES (1, '2026-11-30T09:00:00Z', 's', 'terminal', 'CONFIRMED', '{"command":')`,
		`INSERT INTO ledger VALUES (2, '2026-11-30T09:00:01Z', 's', CAST(X'7465726DFF' AS TEXT), 'PENDING', CAST(X'00FF00' AS TEXT))`,
		`INSERT INTO ledger VALUES (3, '2026-11-30T09:00:02Z', 's', 'write_file', 'ERROR:timeout', '`+big+`')`,
		`INSERT INTO ledger VALUES (4, 'garbage', 's', 'terminal', 'WEIRD', NULL)`,
		`INSERT INTO ledger VALUES (5, NULL, NULL, NULL, NULL, NULL)`,
		`INSERT INTO ledger VALUES (6, 1796029200.5, 7, 8, 9, X'0102')`,
	)
	a, err := analyze(t, path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if a.calls != 6 {
		t.Fatalf("%d calls, want 6", a.calls)
	}
	c2, c3 := a.recs[1].Call, a.recs[2].Call
	if c2.Tool != "term\uFFFD" || c2.Args != "\x00\uFFFD\x00" {
		t.Errorf("row 2: %q %q", c2.Tool, c2.Args)
	}
	if len(c3.Args) != MaxArgsChars || !c3.ArgsTruncated || c3.Status != StatusError || c3.ErrorType != "timeout" {
		t.Errorf("row 3: %d %v %s %s", len(c3.Args), c3.ArgsTruncated, c3.Status, c3.ErrorType)
	}
	if got := a.recs[5].Call.TS; !got.Equal(time.Date(2026, 11, 30, 9, 0, 0, 500e6, time.UTC)) {
		t.Errorf("row 6 epoch ts: %v", got)
	}
	warnings := strings.Join(a.warnings, "\n")
	for _, want := range []string{`row 4: unknown status "WEIRD"`, `row 4: unreadable timestamp "garbage"`, "row 2: text is not valid UTF-8"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
}

// A pathological file cannot grow memory through warnings.
func TestFaultWarningsAreBounded(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 1)
	var stmts []string
	for i := 0; i < 300; i++ {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO events(id, ts, kind, session_id) VALUES (%d, 'never %d', 'llm_call', 's')`, 100+i, i))
	}
	rawSQL(t, path, stmts...)
	a, err := analyze(t, path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.warnings) > 102 || a.warnings[100] != "further warnings suppressed" {
		t.Fatalf("%d warnings, last %q", len(a.warnings), a.warnings[len(a.warnings)-1])
	}
}

// The callback's own error ends the scan untouched: it is not a problem
// with the file.
func TestFaultCallbackErrorIsNotAFileError(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 5)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stop := io.ErrShortWrite
	err = r.Scan(Filter{}, func(Record) error { return stop })
	if err != stop {
		t.Fatalf("got %v, want the callback's error", err)
	}
}

// Scan reads ahead on another goroutine; a callback that fails or panics
// must stop it and give the connection back, or the next Scan on the same
// Reader would wait forever.
func TestFaultScanReadAheadStops(t *testing.T) {
	path := faultLedger(t, t.TempDir(), 3000)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the callback's panic was swallowed")
			}
		}()
		n := 0
		r.Scan(Filter{}, func(Record) error {
			if n++; n == 3 {
				panic("analysis bug")
			}
			return nil
		})
	}()
	n := 0
	if err := r.Scan(Filter{}, func(Record) error { n++; return io.EOF }); err != io.EOF || n != 1 {
		t.Fatalf("after a panic: %v, %d records", err, n)
	}
	withDeadline(t, 20*time.Second, func() {
		calls := 0
		if err := r.Scan(Filter{}, func(rec Record) error {
			if rec.Call != nil {
				calls++
			}
			return nil
		}); err != nil || calls != 3000 {
			t.Errorf("third scan: %d calls, %v", calls, err)
		}
	})
}
