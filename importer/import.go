package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Formats accepted by --from.
const (
	FromClaudeCode = "claude-code"
	FromCodex      = "codex"
)

// Options tune an import. The zero value imports every mutating call.
type Options struct {
	// AllTools keeps read-only calls too (--all-tools).
	AllTools bool
	// Since (inclusive) and Until (exclusive) bound what is imported: a
	// call by its issue time (its outcome follows it), other events by
	// their own time. Zero means no bound.
	Since, Until time.Time
	// Session keeps only this (parent) session.
	Session string
	// Warn receives one line per file with skipped lines or nothing
	// recognisable. Nil discards them.
	Warn io.Writer
}

// Summary is what an import did.
type Summary struct {
	From           string
	Files          int // transcript files read
	FilesSkipped   int // files with nothing recognisable (found by a directory walk)
	Sessions       int // sessions with at least one imported event
	Calls          int // tool calls imported (new or already present)
	Confirmed      int
	Errors         int
	Pending        int // calls with no result in the transcript
	ReadOnly       int // calls not kept because the tool does not change state
	Compactions    int
	LLMCalls       int
	Written        int // events appended to the ledger
	Present        int // events already in the ledger from an earlier import
	SkippedLines   int // lines skipped, over all files
	FilesWithSkips int
}

// FileError is a transcript that could not be used at all.
type FileError struct {
	Path    string
	Problem string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Problem }

func source(from string) (string, error) {
	switch from {
	case FromClaudeCode:
		return SourceClaudeCode, nil
	case FromCodex:
		return SourceCodex, nil
	}
	return "", fmt.Errorf("unknown transcript format %q (want %s or %s)", from, FromClaudeCode, FromCodex)
}

// DefaultPaths are the places a format's transcripts live, the ones that
// exist on this machine first to last. getenv reads CLAUDE_CONFIG_DIR,
// CODEX_HOME and HOME.
func DefaultPaths(from string, getenv func(string) string) []string {
	home := getenv("HOME")
	var cands []string
	switch from {
	case FromClaudeCode:
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			cands = append(cands, filepath.Join(d, "projects"))
		}
		if home != "" {
			cands = append(cands, filepath.Join(home, ".config", "claude", "projects"), filepath.Join(home, ".claude", "projects"))
		}
	case FromCodex:
		if d := getenv("CODEX_HOME"); d != "" {
			cands = append(cands, filepath.Join(d, "sessions"))
		} else if home != "" {
			cands = append(cands, filepath.Join(home, ".codex", "sessions"))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.IsDir() && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// input is one transcript file to read.
type input struct {
	path     string
	explicit bool // named by the user, not found by a walk
}

// collect expands paths into transcript files: files as given, directories
// walked for *.jsonl (symbolic links to directories are not followed).
func collect(paths []string) ([]input, error) {
	var out []input
	seen := map[string]bool{}
	add := func(p string, explicit bool) {
		if !seen[p] {
			seen[p] = true
			out = append(out, input{p, explicit})
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &FileError{p, describeErr(err)}
		}
		if !st.IsDir() {
			add(p, true)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				if q == p {
					return err
				}
				return nil // an unreadable corner of the tree is not fatal
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
				found = append(found, q)
			}
			return nil
		})
		if err != nil {
			return nil, &FileError{p, describeErr(err)}
		}
		sort.Strings(found)
		for _, q := range found {
			add(q, false)
		}
	}
	return out, nil
}

func describeErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// groupKey puts a Claude Code session file and its sub-agent files
// (<dir>/<session>.jsonl, <dir>/<session>/subagents/*.jsonl) in one group,
// written in one transaction with its events in time order.
func groupKey(from, path string) string {
	if from != FromClaudeCode {
		return path
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		return filepath.Dir(dir)
	}
	return strings.TrimSuffix(path, ".jsonl")
}

// parsed is one file read into events.
type parsed struct {
	path   string
	stats  fileStats
	events []ledger.Event
}

// readFile reads one transcript read-only.
func readFile(from, path string) (*parsed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &FileError{path, describeErr(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &FileError{path, describeErr(err)}
	}
	if st.IsDir() {
		return nil, &FileError{path, "is a directory"}
	}
	var p lineParser
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	switch from {
	case FromClaudeCode:
		r := newClaudeReader()
		r.fallback, r.mtime = stem, st.ModTime().UTC()
		if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" {
			r.subagent = true
			r.session = filepath.Base(filepath.Dir(dir))
		}
		if strings.HasPrefix(stem, "agent-") {
			r.subagent = true
			r.agent = strings.TrimPrefix(stem, "agent-")
		}
		p = r
	default:
		r := newCodexReader()
		r.fallback, r.mtime = codexSessionFromName(stem), st.ModTime().UTC()
		p = r
	}
	stats, err := readLines(f, p)
	if err != nil {
		return nil, &FileError{path, "read error: " + describeErr(err)}
	}
	return &parsed{path: path, stats: stats, events: p.result()}, nil
}

// codexSessionFromName takes the uuid off rollout-<ts>-<uuid>.
func codexSessionFromName(stem string) string {
	if len(stem) >= 36 {
		tail := stem[len(stem)-36:]
		if strings.Count(tail, "-") == 4 {
			return tail
		}
	}
	return stem
}

func formatName(from string) string {
	if from == FromClaudeCode {
		return "Claude Code transcript"
	}
	return "Codex rollout"
}

// unrecognised says why a file is not a transcript of the format.
func unrecognised(from string, p *parsed) string {
	if p.stats.Lines == 0 {
		return "empty file, not a " + formatName(from)
	}
	why := "not a " + formatName(from) + " (" + p.stats.FirstSkip + ")"
	if from == FromClaudeCode && strings.Contains(p.stats.FirstSkip, `"session_meta"`) {
		why += "; a Codex rollout? use --from codex"
	}
	if from == FromCodex && (strings.Contains(p.stats.FirstSkip, `"user"`) || strings.Contains(p.stats.FirstSkip, `"summary"`) || strings.Contains(p.stats.FirstSkip, `"assistant"`)) {
		why += "; a Claude Code transcript? use --from claude-code"
	}
	return why
}

// Import reads the transcripts at paths (files, or directories walked for
// *.jsonl) and appends their events to the ledger at ledgerPath, creating
// it if needed. Files named explicitly are all read before anything is
// written: one that is not a transcript fails the import (a *FileError)
// and leaves the ledger untouched. A ledger is created only when there is
// something to write into it.
func Import(from string, paths []string, ledgerPath string, opts Options) (Summary, error) {
	return doImport(from, paths, ledgerPath, opts, false)
}

// doImport is Import; create makes sure the ledger exists afterwards even
// when nothing was written into it (an audit must find a file to open).
func doImport(from string, paths []string, ledgerPath string, opts Options, create bool) (Summary, error) {
	sum := Summary{From: from}
	src, err := source(from)
	if err != nil {
		return sum, err
	}
	if opts.Warn == nil {
		opts.Warn = io.Discard
	}
	if len(paths) == 0 {
		return sum, fmt.Errorf("no %s paths given", formatName(from))
	}
	inputs, err := collect(paths)
	if err != nil {
		return sum, err
	}
	if len(inputs) == 0 {
		return sum, &FileError{strings.Join(paths, ", "), "no *.jsonl transcripts found"}
	}

	// Explicit files first, in full: a wrong argument must fail before the
	// ledger is touched.
	pre := map[string]*parsed{}
	for _, in := range inputs {
		if !in.explicit {
			continue
		}
		p, err := readFile(from, in.path)
		if err != nil {
			return sum, err
		}
		if p.stats.Recognised == 0 {
			return sum, &FileError{in.path, unrecognised(from, p)}
		}
		pre[in.path] = p
	}

	groups := map[string][]input{}
	var order []string
	for _, in := range inputs {
		k := groupKey(from, in.path)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], in)
	}
	sort.Strings(order)

	im := &importer{src: src, opts: opts, sum: &sum, ledgerPath: ledgerPath, sessions: map[string]bool{}}
	defer im.close()
	for _, k := range order {
		var events []ledger.Event
		for _, in := range groups[k] {
			p := pre[in.path]
			if p == nil {
				if p, err = readFile(from, in.path); err != nil {
					var fe *FileError
					if errors.As(err, &fe) {
						fmt.Fprintf(opts.Warn, "%s, skipped\n", fe.Error())
						sum.FilesSkipped++
						continue
					}
					return sum, err
				}
				if p.stats.Recognised == 0 {
					fmt.Fprintf(opts.Warn, "%s: %s, skipped\n", p.path, unrecognised(from, p))
					sum.FilesSkipped++
					continue
				}
			}
			sum.Files++
			if p.stats.Skipped > 0 {
				sum.SkippedLines += p.stats.Skipped
				sum.FilesWithSkips++
				noun := "lines"
				if p.stats.Skipped == 1 {
					noun = "line"
				}
				fmt.Fprintf(opts.Warn, "%s: %d %s skipped: %s\n", p.path, p.stats.Skipped, noun, p.stats.FirstSkip)
			}
			events = append(events, p.events...)
		}
		// Sub-agent files run alongside their parent: time order, stable so
		// an outcome never precedes its call when both share a millisecond.
		sort.SliceStable(events, func(i, j int) bool { return events[i].TS.Before(events[j].TS) })
		if err := im.write(events); err != nil {
			return sum, err
		}
	}
	if sum.Files == 0 {
		return sum, &FileError{strings.Join(paths, ", "), "nothing recognisable as a " + formatName(from)}
	}
	sum.Sessions = len(im.sessions)
	if create {
		if err := im.open(); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// ImportToTemp imports into a fresh ledger in a temporary directory, for
// auditing transcripts directly (audit --from claude-code PATH). cleanup
// removes the directory; it is safe to call more than once.
func ImportToTemp(from string, paths []string, opts Options) (ledgerPath string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "ledger-audit-import-*")
	if err != nil {
		return "", func() {}, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	ledgerPath = filepath.Join(dir, from+".ledger.db")
	if _, err := doImport(from, paths, ledgerPath, opts, true); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return ledgerPath, cleanup, nil
}
