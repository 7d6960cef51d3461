package main

import (
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/report"
)

const dailyToken = "987654321:AAE-daily-secret-token_abcdefghijklmnop"

// fakeBotAPI records requests to a local Bot API and answers from a
// script of status codes (then 200).
type fakeBotAPI struct {
	mu     sync.Mutex
	calls  []fakeCall
	status []int
}

type fakeCall struct {
	method, text, caption, file string
	fileBytes                   []byte
	path                        string
}

func newFakeBotAPI(t *testing.T, status ...int) (*fakeBotAPI, *httptest.Server) {
	f := &fakeBotAPI{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := fakeCall{path: r.URL.Path, method: r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]}
		ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct == "multipart/form-data" {
			mr := multipart.NewReader(r.Body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				b, _ := io.ReadAll(p)
				switch {
				case p.FileName() != "":
					c.file, c.fileBytes = p.FileName(), b
				case p.FormName() == "caption":
					c.caption = string(b)
				}
			}
		} else {
			_ = r.ParseForm()
			c.text = r.PostForm.Get("text")
		}
		f.mu.Lock()
		n := len(f.calls)
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		if n < len(f.status) && f.status[n] != 200 {
			w.WriteHeader(f.status[n])
			extra := ""
			if f.status[n] == 429 {
				extra = `,"parameters":{"retry_after":2}`
			}
			fmt.Fprintf(w, `{"ok":false,"error_code":%d,"description":"scripted %d"%s}`, f.status[n], f.status[n], extra)
			return
		}
		fmt.Fprint(w, `{"ok":true,"result":{}}`)
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

// dailyLedger copies the bundled sample into a temp dir, so the history
// file lands beside the copy and never in the repository.
func dailyLedger(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../samples/week-mixed.db")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ledger.db")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// noSleep replaces the client's waits for the test and records them.
func noSleep(t *testing.T) *[]time.Duration {
	var got []time.Duration
	old := dailySleep
	dailySleep = func(_ context.Context, d time.Duration) error { got = append(got, d); return nil }
	t.Cleanup(func() { dailySleep = old })
	return &got
}

func creds(api string) map[string]string {
	return map[string]string{envBotToken: dailyToken, envChatID: "-1001", envAPIURL: api}
}

func assertNoToken(t *testing.T, streams ...string) {
	t.Helper()
	for _, s := range streams {
		if strings.Contains(s, dailyToken) || strings.Contains(s, "AAE-daily-secret") {
			t.Fatalf("the bot token leaked into output: %q", s)
		}
	}
}

func TestDailySendsReportAndAppendsHistory(t *testing.T) {
	noSleep(t)
	api, srv := newFakeBotAPI(t)
	ledgerPath := dailyLedger(t)
	code, stdout, stderr := reportRun(t, creds(srv.URL), "daily", ledgerPath, "--now", "2026-11-30T08:00:00Z", "--since", "168h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertNoToken(t, stdout, stderr)
	if len(api.calls) < 2 {
		t.Fatalf("%d API calls, want messages then a document", len(api.calls))
	}
	last := api.calls[len(api.calls)-1]
	if last.method != "sendDocument" || !strings.HasPrefix(string(last.fileBytes), "%PDF-") || last.file != "ledger-audit-2026-11-30.pdf" {
		t.Errorf("last call %s file %q (%d bytes), want the PDF", last.method, last.file, len(last.fileBytes))
	}
	if !strings.Contains(last.caption, "score 16/100") {
		t.Errorf("caption %q", last.caption)
	}
	for _, c := range api.calls[:len(api.calls)-1] {
		if c.method != "sendMessage" || c.path != "/bot"+dailyToken+"/sendMessage" {
			t.Errorf("unexpected call %s %s", c.method, c.path)
		}
		if len([]rune(c.text)) > report.TelegramMessageLimit {
			t.Errorf("message of %d characters", len([]rune(c.text)))
		}
	}
	first := api.calls[0].text
	for _, want := range []string{"Agent posture: 16/100", "first report", "ASI02-DESTRUCTIVE-DELETE", "Ghost calls"} {
		if !strings.Contains(first, want) {
			t.Errorf("summary lacks %q:\n%s", want, first)
		}
	}
	hist := filepath.Join(filepath.Dir(ledgerPath), report.HistoryFileName)
	h, err := report.ReadHistory(hist)
	if err != nil || len(h) != 1 || h[0].Score != 16 || h[0].Date != "2026-11-30" {
		t.Fatalf("history %+v, %v", h, err)
	}
	if !strings.Contains(stdout, "score 16/100 (first report)") {
		t.Errorf("stdout %q", stdout)
	}

	// The next morning: change since yesterday, history grows.
	api.calls = nil
	code, stdout, stderr = reportRun(t, creds(srv.URL), "daily", ledgerPath, "--now", "2026-12-01T08:00:00Z")
	if code != 0 {
		t.Fatalf("second day: exit %d: %s", code, stderr)
	}
	if !strings.Contains(api.calls[0].text, "since 2026-11-30 (16)") {
		t.Errorf("second day summary lacks the change since yesterday:\n%s", api.calls[0].text)
	}
	if h, _ := report.ReadHistory(hist); len(h) != 2 {
		t.Errorf("history has %d lines after two days", len(h))
	}
	assertNoToken(t, stdout, stderr)
}

func TestDailyRetries429AndFailsOn401(t *testing.T) {
	slept := noSleep(t)
	api, srv := newFakeBotAPI(t, 429, 200, 200, 200)
	code, _, stderr := reportRun(t, creds(srv.URL), "daily", dailyLedger(t), "--now", "2026-11-30T08:00:00Z")
	if code != 0 {
		t.Fatalf("429 then OK: exit %d: %s", code, stderr)
	}
	if len(*slept) != 1 || (*slept)[0] != 2*time.Second || api.calls[0].method != "sendMessage" || api.calls[1].method != "sendMessage" {
		t.Errorf("want one wait of retry_after=2s and the message re-sent; slept %v, calls %d", *slept, len(api.calls))
	}

	api, srv = newFakeBotAPI(t, 401)
	ledgerPath := dailyLedger(t)
	code, stdout, stderr := reportRun(t, creds(srv.URL), "daily", ledgerPath, "--now", "2026-11-30T08:00:00Z")
	if code != 2 {
		t.Fatalf("401: exit %d, want 2", code)
	}
	if len(api.calls) != 1 {
		t.Errorf("401 was retried: %d calls", len(api.calls))
	}
	if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 || !strings.Contains(stderr, "401") || !strings.Contains(stderr, envBotToken) {
		t.Errorf("401 stderr %q: want one line naming the status and the credential", stderr)
	}
	assertNoToken(t, stdout, stderr)
}

func TestDailyTokenNeverLeaks(t *testing.T) {
	noSleep(t)
	// Unreachable server: *url.Error would quote the URL with the token.
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	code, stdout, stderr := reportRun(t, creds(dead), "daily", dailyLedger(t), "--now", "2026-11-30T08:00:00Z")
	if code != 2 || !strings.Contains(stderr, "cannot reach") {
		t.Errorf("unreachable API: exit %d, stderr %q", code, stderr)
	}
	assertNoToken(t, stdout, stderr)

	// Token passed as a flag, 403 from the server, --help: never echoed.
	_, srv2 := newFakeBotAPI(t, 403)
	code, stdout, stderr = reportRun(t, map[string]string{envAPIURL: srv2.URL}, "daily", dailyLedger(t), "--bot-token", dailyToken, "--chat-id", "5", "--now", "2026-11-30T08:00:00Z")
	if code != 2 {
		t.Errorf("403: exit %d", code)
	}
	assertNoToken(t, stdout, stderr)
	_, stdout, stderr = reportRun(t, creds(srv2.URL), "daily", "--help")
	assertNoToken(t, stdout, stderr)
}

func TestDailyMissingCredentials(t *testing.T) {
	ledgerPath := dailyLedger(t)
	// An agent's .env beside the ledger holds a bot token: daily must not
	// read it.
	if err := os.WriteFile(filepath.Join(filepath.Dir(ledgerPath), ".env"), []byte("TELEGRAM_BOT_TOKEN="+dailyToken+"\nPOSTURE_TELEGRAM_BOT_TOKEN="+dailyToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := reportRun(t, map[string]string{envChatID: "1"}, "daily", ledgerPath, "--now", "2026-11-30T08:00:00Z")
	if code != 2 || !strings.Contains(stderr, "missing Telegram credentials: set "+envBotToken) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	assertNoToken(t, stdout, stderr)
	if _, err := os.Stat(filepath.Join(filepath.Dir(ledgerPath), report.HistoryFileName)); !os.IsNotExist(err) {
		t.Error("history written although nothing could be sent")
	}
}

func TestDailyDryRun(t *testing.T) {
	ledgerPath := dailyLedger(t)
	code, stdout, stderr := reportRun(t, nil, "daily", ledgerPath, "--now", "2026-11-30T08:00:00Z", "--dry-run", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"--- sendMessage 1/", "<b>Agent posture: ", "--- sendDocument ledger-audit-2026-11-30.pdf", "nothing sent"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run stdout lacks %q", want)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr = reportRun(t, nil, "daily", ledgerPath, "--now", "2026-11-30T08:00:00Z", "--dry-run", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"ledger-audit-2026-11-30.md", "ledger-audit-2026-11-30.pdf", "ledger-audit-2026-11-30.message-1.html", "ledger-audit-2026-11-30.caption.txt"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("dry run did not write %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(ledgerPath), report.HistoryFileName)); !os.IsNotExist(err) {
		t.Error("a dry run appended to the history")
	}
}

func TestDailyBadInput(t *testing.T) {
	ledgerPath := dailyLedger(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"daily", ledgerPath, "--history", ledgerPath, "--dry-run", "-"}, "is a ledger being audited"},
		{[]string{"daily", "--dry-run", "-"}, "no ledger given"},
		{[]string{"daily", ledgerPath, "--since", "yesterday", "--dry-run", "-"}, "--since"},
		{[]string{"daily", filepath.Join(t.TempDir(), "none.db"), "--dry-run", "-"}, "none.db"},
	} {
		code, _, stderr := reportRun(t, nil, c.args...)
		if code != 2 || !strings.Contains(strings.SplitN(stderr, "\n", 2)[0], c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args[1:], code, stderr, c.want)
		}
	}
	// Corrupt history: named, exit 2, nothing sent.
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(hist, []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	api, srv := newFakeBotAPI(t)
	code, _, stderr := reportRun(t, creds(srv.URL), "daily", ledgerPath, "--history", hist, "--now", "2026-11-30T08:00:00Z")
	if code != 2 || !strings.Contains(stderr, hist+": line 1") || len(api.calls) != 0 {
		t.Errorf("corrupt history: exit %d, stderr %q, %d calls", code, stderr, len(api.calls))
	}
}
