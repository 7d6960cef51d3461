package samples

import (
	"os"
	"path/filepath"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// Incident90985 reproduces Hermes issue #90985: a cronjob create issued at
// 20:39:07Z whose result never landed. A turn ran several tool calls whose
// output pushed the context past the compaction threshold; compaction
// replaced the turn with a summary two seconds after the cronjob call, and
// the job existed nowhere afterwards. The session went on as if the job
// had been created.
const Incident90985 = "incident-90985"

// incident90985Session is a Hermes-style session id (date_time_hex).
const incident90985Session = "20261130_201204_5e7c2a"

// The prompt the lost job was created with; the Home's jobs.json lacks it.
const morningDigestPrompt = "Fetch my RSS feeds from ~/feeds/feeds.opml, summarise the ten most important items in five bullet points and send the summary to me here."

func init() {
	Register(Sample{
		Name:        Incident90985,
		Description: "Hermes #90985: a cronjob create at 20:39:07Z lost to context compaction in a session that goes on (ghost), with a Hermes home whose cron/jobs.json lacks the job",
		Build:       buildIncident90985,
		Home:        homeIncident90985,
	})
}

func hermesTerminal(output string, exit int) map[string]any {
	return map[string]any{"output": output, "exit_code": exit, "error": nil}
}

func buildIncident90985(w *ledger.Writer) error {
	t := &tape{}
	s := t.session("hermes", incident90985Session, "", tapeTime("2026-11-30T20:12:04.000Z"))

	// Turn 1: tidy the notes folder.
	s.turn = "1"
	s.start()
	s.llm(18420, 0, 312, secs(4.2))
	s.call("terminal", map[string]any{"command": "ls -la ~/notes"}, secs(0.41),
		hermesTerminal("total 48\ndrwxr-xr-x  6 ana ana 4096 Nov 29 18:02 .\n-rw-r--r--  1 ana ana  812 Nov 28 09:11 inbox.md\n-rw-r--r--  1 ana ana 2210 Nov 30 08:40 todo-2026-11.md\ndrwxr-xr-x  2 ana ana 4096 Nov 12 21:15 recipes\n", 0))
	s.wait(secs(1.3))
	s.llm(19288, 18176, 541, secs(5.8))
	s.call("write_file", map[string]any{
		"path":    "/home/ana/notes/todo-2026-12.md",
		"content": "# December\n\n- [ ] renew the domain (expires 2026-12-14)\n- [ ] book the dentist\n- [ ] move open items from November\n",
	}, secs(0.05), map[string]any{"path": "/home/ana/notes/todo-2026-12.md", "bytes_written": 108})
	s.wait(secs(0.9))
	s.llm(19950, 19264, 188, secs(2.7))
	s.call("terminal", map[string]any{"command": "git -C ~/notes add -A && git -C ~/notes commit -m 'December todo list'"}, secs(0.63),
		hermesTerminal("[main 4c1e9a2] December todo list\n 1 file changed, 5 insertions(+)\n create mode 100644 todo-2026-12.md\n", 0))
	s.wait(secs(0.8))
	s.llm(20312, 19904, 264, secs(3.1))

	// Turn 2: fetch the feeds, summarise them, schedule the daily digest.
	// The fetch output is large: this is the turn that crosses the
	// compaction threshold.
	s.turn = "2"
	s.at(tapeTime("2026-11-30T20:36:40.000Z"))
	s.llm(20870, 20288, 233, secs(3.4))
	s.call("terminal", map[string]any{"command": "python3 ~/scripts/fetch_feeds.py --since 24h"}, secs(9.8),
		hermesTerminal("fetched 14 feeds, 212 new items (1.9 MB) into ~/feeds/cache/2026-11-30/\n[... 212 items ...]", 0))
	s.wait(secs(1.1))
	s.llm(96544, 20846, 402, secs(11.6))
	s.call("terminal", map[string]any{"command": "wc -w ~/feeds/cache/2026-11-30/*.xml | tail -1"}, secs(0.22),
		hermesTerminal(" 184233 total\n", 0))
	s.wait(secs(0.7))
	s.llm(97120, 96512, 151, secs(4.9))
	s.at(tapeTime("2026-11-30T20:38:59.000Z"))
	s.call("terminal", map[string]any{"command": "python3 ~/scripts/fetch_feeds.py --summarise --top 10"}, secs(6.3),
		hermesTerminal("1. ...\n2. ...\n[10 items summarised, 1,480 words]", 0))
	// The lost call: Hermes' legacy alias `cronjob` with action create.
	// Its post_tool_call never comes.
	s.at(tapeTime("2026-11-30T20:39:07.000Z"))
	cron := s.issue("cronjob", map[string]any{
		"action":   "create",
		"name":     "morning-digest",
		"schedule": "0 8 * * *",
		"prompt":   morningDigestPrompt,
		"deliver":  "origin",
	})
	// Preflight compaction fires and rewrites the turn into a summary.
	s.at(tapeTime("2026-11-30T20:39:09.412Z"))
	s.compaction()
	s.at(tapeTime("2026-11-30T20:39:10.000Z"))
	s.llm(9870, 0, 420, secs(6.1)) // the reply: "scheduled for 8:00 every day"

	// Turn 3: the session goes on. The capture hook's pre_llm_call finds
	// the cronjob past its 2-minute grace and reports it.
	s.turn = "3"
	s.at(tapeTime("2026-11-30T20:41:30.000Z"))
	cron.reported()
	s.llm(10412, 9856, 297, secs(3.9))
	s.call("terminal", map[string]any{"command": "mkdir -p ~/notes/digests && ls ~/notes/digests"}, secs(0.12),
		hermesTerminal("", 0))
	s.wait(secs(0.8))
	s.llm(10690, 10400, 366, secs(4.4))
	s.call("write_file", map[string]any{
		"path":    "/home/ana/notes/digests/README.md",
		"content": "# Morning digests\n\nOne file per day, written by the morning-digest job.\n",
	}, secs(0.04), map[string]any{"path": "/home/ana/notes/digests/README.md", "bytes_written": 72})
	s.wait(secs(0.9))
	s.llm(11025, 10688, 141, secs(2.6))
	s.at(tapeTime("2026-11-30T20:45:12.000Z"))
	s.end()
	return t.write(w)
}

// incident90985Jobs is the Hermes cron store after the incident: the two
// jobs the user already had, and no morning-digest.
const incident90985Jobs = `{
  "jobs": [
    {
      "id": "a3f9c1e07b2d",
      "name": "inbox-triage",
      "prompt": "Go through ~/notes/inbox.md, file each item under the right project note and list what needs an answer today.",
      "schedule": {
        "kind": "cron",
        "expr": "30 7 * * 1-5",
        "display": "30 7 * * 1-5"
      },
      "schedule_display": "30 7 * * 1-5",
      "repeat": {
        "times": null,
        "completed": 41
      },
      "enabled": true,
      "state": "scheduled",
      "created_at": "2026-10-02T09:14:22.118431+00:00",
      "next_run_at": "2026-12-01T07:30:00+00:00",
      "last_run_at": "2026-11-30T07:30:02.551208+00:00",
      "last_status": "ok",
      "deliver": "origin"
    },
    {
      "id": "5d0b7e61c948",
      "name": "backup-check",
      "prompt": "Check that last night's restic backup of ~/notes and ~/projects finished and report anything unusual.",
      "schedule": {
        "kind": "cron",
        "expr": "0 9 * * 0",
        "display": "0 9 * * 0"
      },
      "schedule_display": "0 9 * * 0",
      "repeat": {
        "times": null,
        "completed": 9
      },
      "enabled": true,
      "state": "scheduled",
      "created_at": "2026-09-27T16:40:03.902114+00:00",
      "next_run_at": "2026-12-06T09:00:00+00:00",
      "last_run_at": "2026-11-29T09:00:01.730055+00:00",
      "last_status": "ok",
      "deliver": "origin"
    }
  ],
  "updated_at": "2026-11-30T07:30:41.220913+00:00"
}
`

// homeIncident90985 writes the Hermes home of the incident: the cron store
// as it was found afterwards.
func homeIncident90985(dir string) error {
	cron := filepath.Join(dir, "cron")
	if err := os.MkdirAll(cron, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cron, "jobs.json"), []byte(incident90985Jobs), 0o644)
}
