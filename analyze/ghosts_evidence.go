package analyze

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxCompareBytes bounds how much of a written file is read to compare it
// with the call's content; larger files are compared by size only.
const maxCompareBytes = 16 << 20

// evidence gathers what can be said about an open call without asking the
// agent: notes from the ledger itself and, with a Hermes home, offline
// checks of the effect the call was meant to have.
func (g *GhostTracker) evidence(oc *openCall) []string {
	c := oc.call
	var ev []string
	if !oc.compaction.IsZero() {
		d := oc.compaction.Sub(c.TS).Round(time.Second)
		when := fmt.Sprintf("%s after", d)
		if d < 0 {
			when = fmt.Sprintf("%s before", -d)
		}
		ev = append(ev, fmt.Sprintf("context compaction at %s, %s the issue: the turn was likely replaced by a summary (Hermes #90985)",
			rfc3339(oc.compaction), when))
	}
	if c.Tool == "delegate_task" {
		ev = append(ev, "delegate_task may be handled inside the Hermes agent loop without a post_tool_call: check the sub-agent's result before treating it as lost")
	}
	if g.o.HermesHome != "" {
		ev = append(ev, g.homeEvidence(oc)...)
	}
	for i := range ev {
		ev[i] = g.o.Redact.String(ev[i])
	}
	return ev
}

func (g *GhostTracker) homeEvidence(oc *openCall) []string {
	c := oc.call
	switch {
	case strings.HasPrefix(c.Tool, "cronjob"):
		args, ok := parseArgs(c.Args)
		if !ok {
			return []string{argsNote(c.ArgsTruncated, "the cron job")}
		}
		if c.Tool != "cronjob_create" && !strings.EqualFold(str(args["action"]), "create") {
			return nil
		}
		if g.home == nil {
			g.home = &hermesHome{dir: g.o.HermesHome}
		}
		return []string{g.home.cronEvidence(args)}
	case c.Tool == "write_file" || c.Tool == "Write":
		args, ok := parseArgs(c.Args)
		if !ok {
			return []string{argsNote(c.ArgsTruncated, "the written file")}
		}
		path := str(args["path"])
		if path == "" {
			path = str(args["file_path"])
		}
		content, hasContent := args["content"].(string)
		return []string{fileEvidence(path, c.Cwd, content, hasContent && !c.ArgsTruncated, c.ArgsTruncated)}
	}
	return nil
}

func argsNote(truncated bool, what string) string {
	if truncated {
		return "arguments were truncated in the ledger: " + what + " could not be checked"
	}
	return "arguments are not a JSON object: " + what + " could not be checked"
}

func parseArgs(s string) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// hermesHome caches what was read from a Hermes home directory.
type hermesHome struct {
	dir        string
	jobsLoaded bool
	jobs       []map[string]any
	jobsErr    string // why jobs.json could not be used
	jobsAbsent bool
}

func (h *hermesHome) loadJobs() {
	if h.jobsLoaded {
		return
	}
	h.jobsLoaded = true
	b, err := os.ReadFile(filepath.Join(h.dir, "cron", "jobs.json"))
	if errors.Is(err, fs.ErrNotExist) {
		h.jobsAbsent = true
		return
	}
	if err != nil {
		h.jobsErr = unwrapPath(err).Error()
		return
	}
	var doc struct {
		Jobs []map[string]any `json:"jobs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		h.jobsErr = "not valid JSON (" + err.Error() + ")"
		return
	}
	h.jobs = doc.Jobs
}

// cronEvidence says whether the job a cronjob create asked for exists.
// Hermes names a job after the first 50 characters of its prompt when no
// name is given and resolves names case-insensitively, so a job matches
// on its name or its prompt; the schedule alone identifies it only when
// the call gave neither.
func (h *hermesHome) cronEvidence(args map[string]any) string {
	name, prompt, schedule := str(args["name"]), str(args["prompt"]), scheduleText(args["schedule"])
	label := name
	if label == "" {
		label = excerpt(prompt, 50)
	}
	if label == "" {
		label = "with schedule " + schedule
	}
	h.loadJobs()
	switch {
	case h.jobsErr != "":
		return "cannot check cron/jobs.json: " + h.jobsErr
	case h.jobsAbsent:
		return fmt.Sprintf("job %s not found in cron/jobs.json (file absent: no jobs at all)", label)
	}
	for _, j := range h.jobs {
		if jobMatches(j, name, prompt, schedule) {
			id := str(j["id"])
			if id == "" {
				id = "?"
			}
			return fmt.Sprintf("job %s found in cron/jobs.json (id %s): the job exists, only the confirmation was lost", label, id)
		}
	}
	return fmt.Sprintf("job %s not found in cron/jobs.json (%d jobs)", label, len(h.jobs))
}

func jobMatches(j map[string]any, name, prompt, schedule string) bool {
	if name != "" && strings.EqualFold(str(j["name"]), name) {
		return true
	}
	if prompt != "" && str(j["prompt"]) == prompt {
		return true
	}
	if name == "" && prompt == "" && schedule != "" {
		return scheduleText(j["schedule_display"]) == schedule || scheduleText(j["schedule"]) == schedule
	}
	return false
}

// scheduleText reads a schedule given as text or as Hermes' parsed form
// ({"kind": "cron", "expr": "0 8 * * *", "display": ...}).
func scheduleText(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case map[string]any:
		for _, k := range []string{"expr", "display", "value"} {
			if s := str(x[k]); s != "" {
				return s
			}
		}
	}
	return ""
}

// fileEvidence compares a written file with what the call meant to write.
func fileEvidence(path, cwd, content string, compare, truncated bool) string {
	if path == "" {
		return "the call names no file path: not checked"
	}
	full := path
	if strings.HasPrefix(full, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			full = filepath.Join(home, full[2:])
		}
	}
	if !filepath.IsAbs(full) {
		if cwd == "" {
			return fmt.Sprintf("path %s is relative and the call recorded no working directory: not checked", path)
		}
		full = filepath.Join(cwd, full)
	}
	f, err := os.Open(full)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("file %s does not exist: the write never landed", path)
	}
	if err != nil {
		return fmt.Sprintf("cannot check file %s: %v", path, unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Sprintf("cannot check file %s: %v", path, unwrapPath(err))
	}
	if st.IsDir() {
		return fmt.Sprintf("%s is a directory, not the file the call wrote", path)
	}
	if !compare {
		why := "the call's content is not in the ledger"
		if truncated {
			why = "arguments were truncated"
		}
		return fmt.Sprintf("file %s exists (%d bytes); content not compared: %s", path, st.Size(), why)
	}
	want := []byte(content)
	if st.Size() != int64(len(want)) {
		return fmt.Sprintf("file %s holds other content (%d bytes, the call wrote %d): the write did not land as issued", path, st.Size(), len(want))
	}
	if st.Size() > maxCompareBytes {
		return fmt.Sprintf("file %s exists with the expected size (%d bytes; too large to compare)", path, st.Size())
	}
	got, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("cannot check file %s: %v", path, unwrapPath(err))
	}
	if !bytes.Equal(got, want) {
		return fmt.Sprintf("file %s holds other content (same size, %d bytes, different bytes): the write did not land as issued", path, len(want))
	}
	return fmt.Sprintf("file %s holds exactly the content the call wrote: the write landed, only its confirmation was lost", path)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
