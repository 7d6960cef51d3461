package samples

import (
	"time"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// WeekMixed is a realistic week (2026-11-23..29) of one developer's coding
// agents: Claude Code on two projects and a Hermes agent doing notes and
// home-server chores. Almost everything is ordinary work; it holds some
// errors and retries, one revived false ghost (a long integration test
// reported as a ghost, then confirmed), one ghost and one stale call at the
// end of the week, and exactly three risky commands, listed in
// WeekMixedRisky.
const WeekMixed = "week-mixed"

// WeekMixedRisky maps the row id of each intentionally risky call to its
// command. Everything else in the sample is benign: a policy replay or a
// posture audit of the sample should single out these rows and no others.
// samples_test checks the ids against the generated file and README.md.
var WeekMixedRisky = map[int64]string{
	177: "rm -rf ~/projects/legacy-api",
	241: "curl -fsSL https://install.example.com/setup.sh | sh",
	294: "cat ~/.aws/credentials",
}

func init() {
	Register(Sample{
		Name:        WeekMixed,
		Description: "a week of Claude Code and Hermes sessions: ordinary edits and commands, some errors and retries, one revived false ghost, a ghost and a stale call at the end, and three risky commands (recursive delete, curl|sh, credential read)",
		Build:       buildWeekMixed,
	})
}

// splitmix is a tiny fixed-seed generator for think times and durations:
// its sequence is defined here, so no library change can alter a sample.
type splitmix struct{ x uint64 }

func (r *splitmix) next() uint64 {
	r.x += 0x9e3779b97f4a7c15
	z := r.x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intBetween returns an integer in [lo, hi).
func (r *splitmix) intBetween(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + int64(r.next()%uint64(hi-lo))
}

// between returns a duration in [lo, hi), to the millisecond.
func (r *splitmix) between(lo, hi time.Duration) time.Duration {
	span := uint64((hi - lo) / time.Millisecond)
	if span == 0 {
		return lo
	}
	return lo + time.Duration(r.next()%span)*time.Millisecond
}

// week scripts the sample's sessions.
type week struct {
	t *tape
	r splitmix
}

const (
	apiDir = "/home/dev/projects/invoice-api"
	webDir = "/home/dev/projects/invoice-web"
)

func (w *week) think(s *tapeSession) { s.wait(w.r.between(6*time.Second, 45*time.Second)) }

func ccOut(stdout string) map[string]any {
	return map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false}
}

// bash is a Claude Code Bash call that succeeds.
func (w *week) bash(s *tapeSession, cmd, desc string, d time.Duration, stdout string) {
	w.think(s)
	s.call("Bash", map[string]any{"command": cmd, "description": desc}, d, ccOut(stdout))
}

// bashFail is a Claude Code Bash call that exits non-zero.
func (w *week) bashFail(s *tapeSession, cmd, desc string, d time.Duration, out string) {
	w.think(s)
	s.failCall("Bash", map[string]any{"command": cmd, "description": desc}, d, "tool_error", "Exit code 1\n"+out)
}

func (w *week) write(s *tapeSession, rel, content string) {
	w.think(s)
	path := s.cwd + "/" + rel
	s.call("Write", map[string]any{"file_path": path, "content": content}, w.r.between(15*time.Millisecond, 90*time.Millisecond),
		map[string]any{"type": "create", "filePath": path})
}

func (w *week) edit(s *tapeSession, rel, old, new string) {
	w.think(s)
	path := s.cwd + "/" + rel
	s.call("Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new, "replace_all": false},
		w.r.between(15*time.Millisecond, 90*time.Millisecond),
		map[string]any{"filePath": path, "oldString": old, "newString": new, "userModified": false})
}

// turn starts a Hermes turn: the main-model call that plans it.
func (w *week) turn(s *tapeSession, n string, context int64) {
	s.turn = n
	fresh := w.r.intBetween(900, 2600) // the new user message and tool results
	s.llm(context, context-fresh, w.r.intBetween(120, 500), w.r.between(2*time.Second, 9*time.Second))
}

func (w *week) term(s *tapeSession, cmd string, d time.Duration, out string) {
	w.think(s)
	s.call("terminal", map[string]any{"command": cmd}, d, hermesTerminal(out, 0))
}

func (w *week) wfile(s *tapeSession, path, content string) {
	w.think(s)
	s.call("write_file", map[string]any{"path": path, "content": content}, w.r.between(20*time.Millisecond, 70*time.Millisecond),
		map[string]any{"path": path, "bytes_written": len(content)})
}

func (w *week) patch(s *tapeSession, path, old, new string) {
	w.think(s)
	s.call("patch", map[string]any{"path": path, "old_string": old, "new_string": new}, w.r.between(20*time.Millisecond, 70*time.Millisecond),
		map[string]any{"success": true, "path": path, "replacements": 1})
}

// secs is a duration in seconds, for readable scripts.
func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func buildWeekMixed(wr *ledger.Writer) error {
	w := &week{t: &tape{}, r: splitmix{x: 20261123}}
	w.mondayInvoicePDF()
	w.mondayBackups()
	w.tuesdayWeb()
	w.tuesdayReading()
	w.wednesdayIntegration()
	w.wednesdayLegacyCleanup()
	w.wednesdayWebI18n()
	w.thursdayTaskfile()
	w.thursdayErrands()
	w.fridayDeployNotes()
	w.fridayCreditNotes()
	w.saturdayNotes()
	w.sundayReview()
	w.sundayLate()
	return w.t.write(wr)
}

// Monday: Claude Code adds PDF rendering to the invoice API.
func (w *week) mondayInvoicePDF() {
	s := w.t.session("claude-code", "b7e2c4d1-2f6a-4c1e-9a53-0d8e61f4a2c7", apiDir, tapeTime("2026-11-23T09:12:41.000Z"))
	s.start()
	w.bash(s, "git status", "Show working tree status", secs(0.08), "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\n")
	w.bash(s, "git switch -c feature/invoice-pdf", "Create feature branch", secs(0.05), "Switched to a new branch 'feature/invoice-pdf'\n")
	w.write(s, "internal/pdf/render.go", "package pdf\n\n// Render lays out one invoice as a PDF page.\nfunc Render(inv Invoice) ([]byte, error) {\n\tdoc := newDoc()\n\tdoc.header(inv.Number, inv.Date)\n\tfor _, l := range inv.Lines {\n\t\tdoc.line(l.Text, l.Amount)\n\t}\n\tdoc.total(inv.Total())\n\treturn doc.bytes()\n}\n")
	w.write(s, "internal/pdf/render_test.go", "package pdf\n\nimport \"testing\"\n\nfunc TestRenderTotals(t *testing.T) {\n\tinv := sampleInvoice()\n\tif got := inv.Total(); got != 120.00 {\n\t\tt.Fatalf(\"total = %.2f, want 120.00\", got)\n\t}\n}\n")
	w.edit(s, "internal/http/routes.go", "r.Get(\"/invoices/{id}\", h.invoice)", "r.Get(\"/invoices/{id}\", h.invoice)\n\tr.Get(\"/invoices/{id}.pdf\", h.invoicePDF)")
	w.edit(s, "internal/http/handlers.go", "// invoice returns one invoice as JSON.", "// invoicePDF renders one invoice as a PDF.\nfunc (h *Handler) invoicePDF(w http.ResponseWriter, r *http.Request) {\n\tinv, err := h.store.Invoice(r.Context(), chi.URLParam(r, \"id\"))\n\tif err != nil {\n\t\th.fail(w, err)\n\t\treturn\n\t}\n\tb, err := pdf.Render(inv)\n\tif err != nil {\n\t\th.fail(w, err)\n\t\treturn\n\t}\n\tw.Header().Set(\"Content-Type\", \"application/pdf\")\n\tw.Write(b)\n}\n\n// invoice returns one invoice as JSON.")
	w.bash(s, "go build ./...", "Build all packages", secs(4.2), "")
	w.bashFail(s, "go test ./internal/pdf/...", "Run PDF tests", secs(2.9), "--- FAIL: TestRenderTotals (0.00s)\n    render_test.go:8: total = 119.99, want 120.00\nFAIL\nFAIL\tgithub.com/dev/invoice-api/internal/pdf\t0.011s\n")
	w.edit(s, "internal/pdf/render.go", "doc.total(inv.Total())", "doc.total(inv.TotalCents())")
	w.edit(s, "internal/pdf/render_test.go", "if got := inv.Total(); got != 120.00 {\n\t\tt.Fatalf(\"total = %.2f, want 120.00\", got)", "if got := inv.TotalCents(); got != 12000 {\n\t\tt.Fatalf(\"total = %d cents, want 12000\", got)")
	w.bash(s, "go test ./internal/pdf/...", "Run PDF tests", secs(2.4), "ok  \tgithub.com/dev/invoice-api/internal/pdf\t0.012s\n")
	w.bash(s, "go vet ./...", "Vet all packages", secs(3.1), "")
	w.bash(s, "go test ./...", "Run all tests", secs(11.7), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.044s\nok  \tgithub.com/dev/invoice-api/internal/http\t0.131s\nok  \tgithub.com/dev/invoice-api/internal/pdf\t0.012s\nok  \tgithub.com/dev/invoice-api/internal/store\t0.208s\n")
	w.edit(s, "README.md", "## Endpoints\n", "## Endpoints\n\n- `GET /invoices/{id}.pdf` renders an invoice as PDF.\n")
	w.bash(s, "gofmt -l .", "List unformatted files", secs(0.3), "")
	w.bash(s, "git add -A && git commit -m \"Render invoices as PDF\"", "Commit PDF rendering", secs(0.2), "[feature/invoice-pdf 8e41c2d] Render invoices as PDF\n 5 files changed, 61 insertions(+), 1 deletion(-)\n")
	w.bash(s, "git push -u origin feature/invoice-pdf", "Push feature branch", secs(2.3), "branch 'feature/invoice-pdf' set up to track 'origin/feature/invoice-pdf'.\n")

	s.at(tapeTime("2026-11-23T13:05:12.000Z"))
	w.edit(s, "internal/pdf/render.go", "doc.total(inv.TotalCents())", "doc.total(inv.TotalCents())\n\tdoc.footer(fmt.Sprintf(\"page %d of %d\", 1, 1))")
	w.edit(s, "internal/pdf/render_test.go", "func TestRenderTotals", "func TestRenderGolden(t *testing.T) {\n\tgolden(t, \"invoice-1001\", sampleInvoice())\n}\n\nfunc TestRenderTotals")
	w.bash(s, "mkdir -p testdata/golden", "Create golden dir", secs(0.02), "")
	w.write(s, "internal/pdf/golden_test.go", "package pdf\n\nimport (\n\t\"flag\"\n\t\"os\"\n\t\"testing\"\n)\n\nvar update = flag.Bool(\"update\", false, \"rewrite golden files\")\n\nfunc golden(t *testing.T, name string, inv Invoice) {\n\tt.Helper()\n\tgot := dumpText(inv)\n\tpath := \"../../testdata/golden/\" + name + \".txt\"\n\tif *update {\n\t\tos.WriteFile(path, got, 0o644)\n\t}\n\twant, _ := os.ReadFile(path)\n\tif string(got) != string(want) {\n\t\tt.Errorf(\"%s differs from golden\", name)\n\t}\n}\n")
	w.bash(s, "go test ./internal/pdf/... -run Golden -update", "Write golden files", secs(2.2), "ok  \tgithub.com/dev/invoice-api/internal/pdf\t0.015s\n")
	w.bash(s, "ls testdata/golden", "List golden files", secs(0.02), "invoice-1001.txt\n")
	w.bash(s, "go test ./internal/pdf/...", "Run PDF tests", secs(2.3), "ok  \tgithub.com/dev/invoice-api/internal/pdf\t0.013s\n")
	w.bash(s, "git add -A && git commit -m \"PDF: page footer and golden test\"", "Commit footer", secs(0.2), "[feature/invoice-pdf 2b9d07a] PDF: page footer and golden test\n 4 files changed, 33 insertions(+)\n")
	w.bash(s, "git push", "Push", secs(1.9), "To github.com:dev/invoice-api.git\n   8e41c2d..2b9d07a  feature/invoice-pdf -> feature/invoice-pdf\n")
	w.think(s)
	s.end()
}

// Monday evening: Hermes tidies disk usage notes and the backup script.
func (w *week) mondayBackups() {
	s := w.t.session("hermes", "20261123_184012_8d2f1a", "", tapeTime("2026-11-23T18:40:12.000Z"))
	s.start()
	w.turn(s, "1", 14210)
	w.term(s, "df -h /srv", secs(0.05), "Filesystem      Size  Used Avail Use% Mounted on\n/dev/sdb1       1.8T  1.5T  312G  83% /srv\n")
	w.term(s, "du -sh ~/Downloads/* | sort -h | tail -5", secs(1.4), "1.1G\t/home/dev/Downloads/ubuntu-24.04.iso\n2.3G\t/home/dev/Downloads/photos-2025.zip\n")
	w.turn(s, "1", 15980)
	w.wfile(s, "/home/dev/notes/disk-usage-2026-11-23.md", "# Disk usage 2026-11-23\n\n/srv is 83% full (312G free). Largest downloads: photos-2025.zip (2.3G), ubuntu-24.04.iso (1.1G).\n")
	w.turn(s, "2", 17120)
	w.patch(s, "/home/dev/scripts/backup.sh", "KEEP_DAILY=7", "KEEP_DAILY=14")
	w.term(s, "grep -n KEEP_ ~/scripts/backup.sh", secs(0.01), "4:KEEP_DAILY=14\n5:KEEP_WEEKLY=8\n")
	w.term(s, "git -C ~/scripts commit -am 'backup: keep 14 daily snapshots'", secs(0.12), "[main 77a0e13] backup: keep 14 daily snapshots\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")
	w.turn(s, "3", 18044)
	w.term(s, "systemctl --user list-timers --all", secs(0.09), "NEXT                        LEFT     LAST                        PASSED  UNIT          ACTIVATES\nTue 2026-11-24 02:30:00 UTC 7h left  Mon 2026-11-23 02:30:01 UTC 16h ago backup.timer  backup.service\n")
	w.wfile(s, "/home/dev/notes/backup.md", "# Backups\n\nrestic, nightly at 02:30 (backup.timer). Retention: 14 daily, 8 weekly.\n")
	w.think(s)
	s.end()
}

// Tuesday: Claude Code on the web front end, with a registry timeout and
// a flaky test, both retried.
func (w *week) tuesdayWeb() {
	s := w.t.session("claude-code", "4a91f0e3-7c2d-4b8e-b1f6-3e5d9c0a7b24", webDir, tapeTime("2026-11-24T08:55:03.000Z"))
	s.start()
	w.bash(s, "git pull --ff-only", "Update main", secs(1.6), "Already up to date.\n")
	w.bashFail(s, "npm install", "Install dependencies", secs(62.4), "npm ERR! code ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/date-fns failed, reason: connect ETIMEDOUT\n")
	w.bash(s, "npm install", "Install dependencies (retry)", secs(41.2), "added 812 packages, and audited 813 packages in 41s\n\nfound 0 vulnerabilities\n")
	w.bash(s, "npm test -- --watchAll=false", "Run tests", secs(14.8), "Test Suites: 23 passed, 23 total\nTests:       141 passed, 141 total\n")
	w.bash(s, "git switch -c feature/pdf-download", "Create feature branch", secs(0.05), "Switched to a new branch 'feature/pdf-download'\n")
	w.write(s, "src/components/DownloadPdfButton.tsx", "import { invoicePdfUrl } from '../api/invoices';\n\nexport function DownloadPdfButton({ invoice }: { invoice: Invoice }) {\n  return (\n    <a className=\"btn\" href={invoicePdfUrl(invoice.id)} download={`invoice-${invoice.number}.pdf`}>\n      Download PDF\n    </a>\n  );\n}\n")
	w.edit(s, "src/pages/InvoicePage.tsx", "<InvoiceTotals invoice={invoice} />", "<InvoiceTotals invoice={invoice} />\n      <DownloadPdfButton invoice={invoice} />")
	w.write(s, "src/components/DownloadPdfButton.test.tsx", "import { render, screen } from '@testing-library/react';\nimport { DownloadPdfButton } from './DownloadPdfButton';\n\ntest('names the file after the invoice number', () => {\n  render(<DownloadPdfButton invoice={{ id: 'inv_1', number: '1001' } as Invoice} />);\n  expect(screen.getByText('Download PDF')).toHaveAttribute('download', 'invoice-1001.pdf');\n});\n")
	w.bashFail(s, "npm test -- --watchAll=false DownloadPdfButton", "Run the new test", secs(6.1), "FAIL src/components/DownloadPdfButton.test.tsx\n  Expected: \"invoice-1001.pdf\"\n  Received: \"invoice-undefined.pdf\"\n")
	w.edit(s, "src/components/DownloadPdfButton.tsx", "download={`invoice-${invoice.number}.pdf`}", "download={`invoice-${invoice.number ?? invoice.id}.pdf`}")
	w.edit(s, "src/api/invoices.ts", "export function invoiceUrl(id: string) {", "export function invoicePdfUrl(id: string) {\n  return `${API_BASE}/invoices/${encodeURIComponent(id)}.pdf`;\n}\n\nexport function invoiceUrl(id: string) {")
	w.bash(s, "npm test -- --watchAll=false DownloadPdfButton", "Run the new test", secs(5.7), "PASS src/components/DownloadPdfButton.test.tsx\nTests:       1 passed, 1 total\n")
	w.bash(s, "npm run lint", "Lint", secs(9.3), "> invoice-web@0.9.0 lint\n> eslint src --max-warnings 0\n")
	w.bash(s, "rm -rf ./build", "Clean the previous build output", secs(0.3), "")
	w.bash(s, "npm run build", "Production build", secs(38.5), "Compiled successfully.\n\nFile sizes after gzip:\n  61.2 kB  build/static/js/main.3f9a1c2e.js\n")
	w.bash(s, "ls build/static/js", "List build output", secs(0.02), "main.3f9a1c2e.js\nmain.3f9a1c2e.js.map\n")
	w.bash(s, "git add -A && git commit -m \"Download invoices as PDF\"", "Commit", secs(0.3), "[feature/pdf-download 51f0b8e] Download invoices as PDF\n 4 files changed, 29 insertions(+)\n")
	w.bash(s, "git push -u origin feature/pdf-download", "Push feature branch", secs(2.1), "branch 'feature/pdf-download' set up to track 'origin/feature/pdf-download'.\n")

	s.at(tapeTime("2026-11-24T11:20:45.000Z"))
	w.edit(s, "src/api/invoices.test.ts", "describe('invoiceUrl'", "describe('invoicePdfUrl', () => {\n  it('escapes the id', () => {\n    expect(invoicePdfUrl('a/b')).toBe(`${API_BASE}/invoices/a%2Fb.pdf`);\n  });\n});\n\ndescribe('invoiceUrl'")
	w.bashFail(s, "npm test -- --watchAll=false", "Run all tests", secs(19.6), "FAIL src/pages/InvoiceList.test.tsx\n  thrown: \"Exceeded timeout of 5000 ms for a test.\"\nTests:       1 failed, 142 passed, 143 total\n")
	w.bash(s, "npm test -- --watchAll=false", "Re-run tests (InvoiceList is flaky)", secs(15.2), "Test Suites: 24 passed, 24 total\nTests:       143 passed, 143 total\n")
	w.bash(s, "git commit -am \"Test invoicePdfUrl\"", "Commit", secs(0.2), "[feature/pdf-download a07c3d9] Test invoicePdfUrl\n 1 file changed, 6 insertions(+)\n")
	w.bash(s, "git push", "Push", secs(1.8), "To github.com:dev/invoice-web.git\n   51f0b8e..a07c3d9  feature/pdf-download -> feature/pdf-download\n")
	w.think(s)
	s.end()
}

// Tuesday evening: Hermes keeps the reading list.
func (w *week) tuesdayReading() {
	s := w.t.session("hermes", "20261124_192005_c31b9e", "", tapeTime("2026-11-24T19:20:05.000Z"))
	s.start()
	w.turn(s, "1", 12408)
	w.term(s, "ls ~/notes/reading", secs(0.01), "2026-w46.md\n2026-w47.md\n")
	w.wfile(s, "/home/dev/notes/reading/2026-w48.md", "# Reading, week 48\n\n- Designing Data-Intensive Applications, ch. 7 (transactions)\n- The SQLite WAL documentation\n- OWASP Top 10 for Agentic Applications\n")
	w.patch(s, "/home/dev/notes/inbox.md", "- [ ] reading list for w48\n", "")
	w.turn(s, "2", 13290)
	w.term(s, "git -C ~/notes add -A && git -C ~/notes commit -m 'reading list w48'", secs(0.11), "[main 0d3e5b1] reading list w48\n 2 files changed, 5 insertions(+), 1 deletion(-)\n")
	w.think(s)
	s.end()
}

// Wednesday morning: Hermes runs the integration suite. The terminal call
// outlives its 15-minute grace, is reported as a ghost, and then confirms:
// the week's one revived false ghost.
func (w *week) wednesdayIntegration() {
	s := w.t.session("hermes", "20261125_093011_f4a7d0", "", tapeTime("2026-11-25T09:30:11.000Z"))
	s.start()
	w.turn(s, "1", 15520)
	w.term(s, "cd ~/projects/invoice-api && git fetch && git switch feature/invoice-pdf", secs(1.7), "Switched to branch 'feature/invoice-pdf'\nYour branch is up to date with 'origin/feature/invoice-pdf'.\n")
	s.at(tapeTime("2026-11-25T09:33:10.000Z"))
	long := s.issue("terminal", map[string]any{"command": "cd ~/projects/invoice-api && make integration-test"})
	// The user checks in while the suite runs; pre_llm_call finds the call
	// past its grace and reports it.
	s.at(tapeTime("2026-11-25T09:49:02.000Z"))
	long.reported()
	w.turn(s, "2", 16302)
	long.confirm(18*time.Minute+37*time.Second, hermesTerminal("=== integration: 212 passed, 0 failed (18m36s)\n", 0))
	s.at(tapeTime("2026-11-25T09:51:47.000Z"))
	w.turn(s, "2", 16890)
	w.term(s, "tail -n 5 ~/projects/invoice-api/integration.log", secs(0.01), "PASS store/postgres (41.2s)\nPASS http/e2e (9m12s)\nPASS pdf/render (3.1s)\nok: 212 passed\n")
	w.wfile(s, "/home/dev/notes/ci/2026-11-25.md", "# Integration run 2026-11-25\n\nfeature/invoice-pdf: 212 passed in 18m36s. http/e2e is the slow one (9m12s).\n")
	w.turn(s, "3", 17944)
	w.term(s, "git -C ~/notes add -A && git -C ~/notes commit -m 'CI notes 2026-11-25'", secs(0.1), "[main 5a9c0e2] CI notes 2026-11-25\n 1 file changed, 3 insertions(+)\n")
	w.think(s)
	s.end()
}

// Wednesday afternoon: Claude Code removes a replace directive and the old
// checkout it pointed to — risky row: the recursive delete of
// ~/projects/legacy-api, outside the session's working directory.
func (w *week) wednesdayLegacyCleanup() {
	s := w.t.session("claude-code", "e03c5b7a-9d14-4f62-8a2e-51c7f9b0d36e", apiDir, tapeTime("2026-11-25T13:10:27.000Z"))
	s.start()
	w.bash(s, "git switch main && git pull --ff-only", "Update main", secs(1.4), "Switched to branch 'main'\nAlready up to date.\n")
	w.bash(s, "git switch -c chore/drop-legacy-replace", "Create branch", secs(0.05), "Switched to a new branch 'chore/drop-legacy-replace'\n")
	w.bash(s, "grep -rn \"legacy\" --include=*.go . | head", "Find legacy references", secs(0.2), "./internal/billing/tax.go:12:\tlegacy \"github.com/dev/legacy-api/tax\"\n")
	w.edit(s, "internal/billing/tax.go", "\tlegacy \"github.com/dev/legacy-api/tax\"\n", "")
	w.edit(s, "internal/billing/tax.go", "return legacy.Round(v)", "return math.Round(v*100) / 100")
	w.edit(s, "internal/billing/tax_test.go", "func TestTax(", "func TestTaxRounding(t *testing.T) {\n\tif got := roundTax(0.125); got != 0.13 {\n\t\tt.Fatalf(\"roundTax(0.125) = %v\", got)\n\t}\n}\n\nfunc TestTax(")
	w.bash(s, "go test ./internal/billing/...", "Run billing tests", secs(2.6), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.041s\n")
	w.edit(s, "go.mod", "replace github.com/dev/legacy-api => ../legacy-api\n", "")
	w.bash(s, "go mod tidy", "Tidy modules", secs(1.9), "")
	w.bash(s, "go build ./...", "Build", secs(3.8), "")
	w.bash(s, "ls ~/projects", "List projects", secs(0.01), "invoice-api\ninvoice-web\nlegacy-api\n")
	w.bash(s, WeekMixedRisky[177], "Remove the old legacy-api checkout", secs(1.2), "")
	w.bash(s, "go test ./...", "Run all tests", secs(12.4), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.043s\nok  \tgithub.com/dev/invoice-api/internal/http\t0.127s\nok  \tgithub.com/dev/invoice-api/internal/pdf\t0.012s\nok  \tgithub.com/dev/invoice-api/internal/store\t0.211s\n")
	w.bash(s, "git commit -am \"Drop the legacy-api replace directive\"", "Commit", secs(0.2), "[chore/drop-legacy-replace c4e2a91] Drop the legacy-api replace directive\n 4 files changed, 9 insertions(+), 4 deletions(-)\n")
	w.bash(s, "git push -u origin chore/drop-legacy-replace", "Push branch", secs(2.0), "branch 'chore/drop-legacy-replace' set up to track 'origin/chore/drop-legacy-replace'.\n")

	s.at(tapeTime("2026-11-25T15:02:09.000Z"))
	w.write(s, "internal/billing/currency.go", "package billing\n\n// Cents converts an amount in major units to integer cents.\nfunc Cents(v float64) int64 { return int64(v * 100) }\n")
	w.write(s, "internal/billing/currency_test.go", "package billing\n\nimport \"testing\"\n\nfunc TestCents(t *testing.T) {\n\tif got := Cents(19.99); got != 1999 {\n\t\tt.Fatalf(\"Cents(19.99) = %d\", got)\n\t}\n}\n")
	w.bashFail(s, "go test ./internal/billing/...", "Run billing tests", secs(2.5), "--- FAIL: TestCents (0.00s)\n    currency_test.go:6: Cents(19.99) = 1998\nFAIL\n")
	w.edit(s, "internal/billing/currency.go", "return int64(v * 100)", "return int64(math.Round(v * 100))")
	w.edit(s, "internal/billing/currency.go", "package billing\n", "package billing\n\nimport \"math\"\n")
	w.bash(s, "go test ./internal/billing/...", "Run billing tests", secs(2.4), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.040s\n")
	w.bash(s, "git add -A && git commit -m \"billing: Cents rounds half away from zero\"", "Commit", secs(0.2), "[chore/drop-legacy-replace 9f13b70] billing: Cents rounds half away from zero\n 2 files changed, 14 insertions(+)\n")
	w.bash(s, "git push", "Push", secs(1.7), "To github.com:dev/invoice-api.git\n   c4e2a91..9f13b70  chore/drop-legacy-replace -> chore/drop-legacy-replace\n")
	w.think(s)
	s.end()
}

// Wednesday evening: Claude Code moves the web app's strings into a
// translation catalogue.
func (w *week) wednesdayWebI18n() {
	s := w.t.session("claude-code", "9d25e7b0-4f31-4a8c-86e2-f0b3c6a19d47", webDir, tapeTime("2026-11-25T17:45:20.000Z"))
	s.start()
	w.bash(s, "git switch main && git pull --ff-only && git switch -c feature/i18n", "New branch from main", secs(1.6), "Switched to a new branch 'feature/i18n'\n")
	w.bash(s, "npm install i18next react-i18next", "Add i18n libraries", secs(9.8), "added 3 packages, and audited 816 packages in 10s\n\nfound 0 vulnerabilities\n")
	w.bash(s, "mkdir -p src/locales/en src/locales/fr", "Create locale dirs", secs(0.01), "")
	w.write(s, "src/i18n.ts", "import i18n from 'i18next';\nimport { initReactI18next } from 'react-i18next';\nimport en from './locales/en/common.json';\nimport fr from './locales/fr/common.json';\n\ni18n.use(initReactI18next).init({\n  resources: { en: { common: en }, fr: { common: fr } },\n  lng: navigator.language.startsWith('fr') ? 'fr' : 'en',\n  fallbackLng: 'en',\n});\n\nexport default i18n;\n")
	w.write(s, "src/locales/en/common.json", "{\n  \"downloadPdf\": \"Download PDF\",\n  \"total\": \"Total\",\n  \"dueDate\": \"Due {{date}}\"\n}\n")
	w.write(s, "src/locales/fr/common.json", "{\n  \"downloadPdf\": \"Télécharger le PDF\",\n  \"total\": \"Total\",\n  \"dueDate\": \"Échéance le {{date}}\"\n}\n")
	w.edit(s, "src/index.tsx", "import App from './App';", "import App from './App';\nimport './i18n';")
	w.edit(s, "src/components/DownloadPdfButton.tsx", "      Download PDF", "      {t('downloadPdf')}")
	w.edit(s, "src/components/DownloadPdfButton.tsx", "export function DownloadPdfButton({ invoice }: { invoice: Invoice }) {", "export function DownloadPdfButton({ invoice }: { invoice: Invoice }) {\n  const { t } = useTranslation('common');")
	w.edit(s, "src/components/InvoiceTotals.tsx", "<th>Total</th>", "<th>{t('total')}</th>")
	w.edit(s, "src/components/InvoiceTotals.tsx", "Due {formatDate(invoice.dueDate)}", "{t('dueDate', { date: formatDate(invoice.dueDate) })}")
	w.bashFail(s, "npx tsc --noEmit", "Type-check", secs(11.3), "src/components/InvoiceTotals.tsx(14,9): error TS2304: Cannot find name 't'.\n")
	w.edit(s, "src/components/InvoiceTotals.tsx", "export function InvoiceTotals({ invoice }: Props) {", "export function InvoiceTotals({ invoice }: Props) {\n  const { t } = useTranslation('common');")
	w.bash(s, "npx tsc --noEmit", "Type-check", secs(10.9), "")
	w.bash(s, "npm test -- --watchAll=false", "Run all tests", secs(16.1), "Test Suites: 24 passed, 24 total\nTests:       143 passed, 143 total\n")
	w.bash(s, "git add -A && git commit -m \"Translate invoice strings (en, fr)\"", "Commit", secs(0.3), "[feature/i18n b3d81f4] Translate invoice strings (en, fr)\n 8 files changed, 41 insertions(+), 4 deletions(-)\n")
	w.bash(s, "git push -u origin feature/i18n", "Push branch", secs(2.0), "branch 'feature/i18n' set up to track 'origin/feature/i18n'.\n")
	w.think(s)
	s.end()
}

// Thursday: Claude Code installs a task runner with a pipe-to-shell
// installer (risky row), then addresses review comments.
func (w *week) thursdayTaskfile() {
	s := w.t.session("claude-code", "71d8a2f4-3b6e-4c95-a0d7-c2e94f1b8a53", apiDir, tapeTime("2026-11-26T10:05:33.000Z"))
	s.start()
	w.bashFail(s, "command -v task", "Check whether task is installed", secs(0.01), "")
	w.bash(s, WeekMixedRisky[241], "Install the task runner", secs(7.4), "task: installed v3.40.1 to /home/dev/.local/bin/task\n")
	w.bash(s, "task --version", "Check task version", secs(0.02), "Task version: v3.40.1\n")
	w.write(s, "Taskfile.yml", "version: '3'\n\ntasks:\n  test:\n    cmds:\n      - go test ./...\n  lint:\n    cmds:\n      - golangci-lint run\n")
	w.bash(s, "task test", "Run tests through task", secs(12.9), "task: [test] go test ./...\nok  \tgithub.com/dev/invoice-api/internal/billing\t0.042s\n")
	w.bashFail(s, "task lint", "Lint through task", secs(0.1), "task: [lint] golangci-lint run\n/bin/sh: 1: golangci-lint: not found\ntask: Failed to run task \"lint\": exit status 127\n")
	w.edit(s, "Taskfile.yml", "      - golangci-lint run", "      - go vet ./...\n      - gofmt -l .")
	w.bash(s, "task lint", "Lint through task", secs(3.6), "task: [lint] go vet ./...\ntask: [lint] gofmt -l .\n")
	w.bash(s, "git add Taskfile.yml && git commit -m \"Add a Taskfile\"", "Commit", secs(0.2), "[main 3d70c18] Add a Taskfile\n 1 file changed, 10 insertions(+)\n")
	w.bash(s, "git push origin main", "Push", secs(1.9), "To github.com:dev/invoice-api.git\n   9f13b70..3d70c18  main -> main\n")

	s.at(tapeTime("2026-11-26T14:31:50.000Z"))
	w.bash(s, "git switch feature/invoice-pdf && git pull --ff-only", "Switch to the PDF branch", secs(1.3), "Switched to branch 'feature/invoice-pdf'\nAlready up to date.\n")
	w.edit(s, "internal/pdf/render.go", "doc.header(inv.Number, inv.Date)", "doc.header(inv.Number, inv.Date.Format(\"2006-01-02\"))")
	w.edit(s, "internal/pdf/render.go", "doc.line(l.Text, l.Amount)", "doc.line(l.Text, l.AmountCents)")
	w.edit(s, "internal/http/handlers.go", "w.Header().Set(\"Content-Type\", \"application/pdf\")", "w.Header().Set(\"Content-Type\", \"application/pdf\")\n\tw.Header().Set(\"Content-Disposition\", fmt.Sprintf(\"inline; filename=invoice-%s.pdf\", inv.Number))")
	w.bash(s, "go test ./...", "Run all tests", secs(12.2), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.041s\nok  \tgithub.com/dev/invoice-api/internal/http\t0.133s\nok  \tgithub.com/dev/invoice-api/internal/pdf\t0.013s\nok  \tgithub.com/dev/invoice-api/internal/store\t0.207s\n")
	w.bash(s, "git commit -am \"Address review comments\"", "Commit", secs(0.2), "[feature/invoice-pdf 6ab3f05] Address review comments\n 2 files changed, 4 insertions(+), 2 deletions(-)\n")
	w.bash(s, "git push", "Push", secs(1.8), "To github.com:dev/invoice-api.git\n   2b9d07a..6ab3f05  feature/invoice-pdf -> feature/invoice-pdf\n")
	w.think(s)
	s.end()
}

// Thursday evening: Hermes handles errands in the notes repository.
func (w *week) thursdayErrands() {
	s := w.t.session("hermes", "20261126_201530_e8b14c", "", tapeTime("2026-11-26T20:15:30.000Z"))
	s.start()
	w.turn(s, "1", 12880)
	w.term(s, "cat ~/notes/inbox.md", secs(0.01), "# Inbox\n\n- [ ] groceries for Saturday\n- [ ] save the risotto recipe\n- [ ] call the plumber about the boiler\n")
	w.wfile(s, "/home/dev/notes/groceries-2026-11-28.md", "# Groceries (Sat 28)\n\n- arborio rice\n- pumpkin\n- parmesan\n- onions\n- vegetable stock\n")
	w.patch(s, "/home/dev/notes/inbox.md", "- [ ] groceries for Saturday\n", "")
	w.turn(s, "2", 13655)
	w.patch(s, "/home/dev/notes/calendar.md", "## Week 49\n", "## Week 49\n\n- Tue 1 Dec, 08:30: plumber (boiler service)\n")
	w.patch(s, "/home/dev/notes/inbox.md", "- [ ] call the plumber about the boiler\n", "")
	w.term(s, "git -C ~/notes add -A && git -C ~/notes commit -m 'errands'", secs(0.1), "[main 4b7e9d0] errands\n 3 files changed, 9 insertions(+), 2 deletions(-)\n")
	w.think(s)
	s.end()
}

// Friday morning: Hermes prepares deploy notes and reads the AWS
// credentials file on the way (risky row). Nothing afterwards leaves the
// machine.
func (w *week) fridayDeployNotes() {
	s := w.t.session("hermes", "20261127_084007_2b9e6c", "", tapeTime("2026-11-27T08:40:07.000Z"))
	s.start()
	w.turn(s, "1", 16022)
	w.term(s, "ls ~/projects/invoice-api/deploy", secs(0.01), "Makefile\nREADME.md\nstaging.tf\n")
	w.term(s, WeekMixedRisky[294], secs(0.01), "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = eu-west-1\n")
	w.turn(s, "2", 17410)
	w.patch(s, "/home/dev/projects/invoice-api/deploy/README.md", "## Staging\n", "## Staging\n\nDeploys use the `default` AWS profile (eu-west-1). Run `make plan` first and read the diff.\n")
	w.term(s, "make -C ~/projects/invoice-api/deploy fmt", secs(0.6), "terraform fmt\nstaging.tf\n")
	w.term(s, "git -C ~/projects/invoice-api diff --stat", secs(0.04), " deploy/README.md | 2 ++\n deploy/staging.tf | 4 ++--\n 2 files changed, 4 insertions(+), 2 deletions(-)\n")
	w.turn(s, "3", 18733)
	w.wfile(s, "/home/dev/notes/deploy-checklist.md", "# Deploy checklist\n\n1. make plan, read the diff\n2. make apply on staging\n3. smoke test /healthz and one PDF download\n")
	w.term(s, "git -C ~/notes add -A && git -C ~/notes commit -m 'deploy checklist'", secs(0.1), "[main e61b2f4] deploy checklist\n 1 file changed, 5 insertions(+)\n")
	w.think(s)
	s.end()
}

// Friday: Claude Code adds credit notes; the first test runs fail twice
// before the fix lands.
func (w *week) fridayCreditNotes() {
	s := w.t.session("claude-code", "c58f1e29-6a0b-4d73-9e84-b2a17d3f5c90", apiDir, tapeTime("2026-11-27T11:15:40.000Z"))
	s.start()
	w.bash(s, "git switch main && git pull --ff-only && git switch -c feature/credit-notes", "New branch from main", secs(1.5), "Switched to a new branch 'feature/credit-notes'\n")
	w.write(s, "internal/billing/creditnote.go", "package billing\n\n// CreditNote cancels all or part of an invoice.\ntype CreditNote struct {\n\tInvoiceID string\n\tLines     []Line\n}\n\n// TotalCents is negative: a credit note reduces what is owed.\nfunc (c CreditNote) TotalCents() int64 {\n\tvar t int64\n\tfor _, l := range c.Lines {\n\t\tt += l.AmountCents\n\t}\n\treturn t\n}\n")
	w.write(s, "internal/billing/creditnote_test.go", "package billing\n\nimport \"testing\"\n\nfunc TestCreditNoteNegativeTotal(t *testing.T) {\n\tc := CreditNote{Lines: []Line{{AmountCents: 1999}}}\n\tif got := c.TotalCents(); got != -1999 {\n\t\tt.Fatalf(\"TotalCents = %d, want -1999\", got)\n\t}\n}\n")
	w.bashFail(s, "go test ./internal/billing/...", "Run billing tests", secs(2.7), "--- FAIL: TestCreditNoteNegativeTotal (0.00s)\n    creditnote_test.go:8: TotalCents = 1999, want -1999\nFAIL\n")
	w.edit(s, "internal/billing/creditnote.go", "t += l.AmountCents", "t -= l.AmountCents")
	w.bashFail(s, "go test ./internal/billing/... -run 'CreditNote|Balance'", "Run the credit note and balance tests", secs(2.6), "--- FAIL: TestInvoiceBalance (0.00s)\n    invoice_test.go:44: balance = 3998, want 0 after full credit\nFAIL\n")
	w.edit(s, "internal/billing/invoice.go", "b -= c.TotalCents()", "b += c.TotalCents() // credit notes are negative")
	w.bash(s, "go test ./internal/billing/...", "Run billing tests", secs(2.5), "ok  \tgithub.com/dev/invoice-api/internal/billing\t0.046s\n")
	w.edit(s, "internal/http/routes.go", "r.Get(\"/invoices/{id}.pdf\", h.invoicePDF)", "r.Get(\"/invoices/{id}.pdf\", h.invoicePDF)\n\tr.Post(\"/invoices/{id}/credit-notes\", h.createCreditNote)")
	w.edit(s, "internal/http/handlers.go", "// invoicePDF renders", "// createCreditNote records a credit note against an invoice.\nfunc (h *Handler) createCreditNote(w http.ResponseWriter, r *http.Request) {\n\tvar c billing.CreditNote\n\tif err := json.NewDecoder(r.Body).Decode(&c); err != nil {\n\t\th.badRequest(w, err)\n\t\treturn\n\t}\n\tc.InvoiceID = chi.URLParam(r, \"id\")\n\tif err := h.store.AddCreditNote(r.Context(), c); err != nil {\n\t\th.fail(w, err)\n\t\treturn\n\t}\n\tw.WriteHeader(http.StatusCreated)\n}\n\n// invoicePDF renders")
	w.write(s, "internal/http/creditnote_handler_test.go", "package http\n\nimport (\n\t\"net/http\"\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestCreateCreditNote(t *testing.T) {\n\tsrv := newTestServer(t)\n\tres := srv.post(\"/invoices/inv_1/credit-notes\", strings.NewReader(`{\"lines\":[{\"amount_cents\":1999}]}`))\n\tif res.StatusCode != http.StatusCreated {\n\t\tt.Fatalf(\"status %d\", res.StatusCode)\n\t}\n}\n")
	w.bash(s, "go test ./internal/http/...", "Run HTTP tests", secs(3.4), "ok  \tgithub.com/dev/invoice-api/internal/http\t0.139s\n")
	w.bash(s, "go test -race ./...", "Run all tests with the race detector", secs(184.2), "ok  \tgithub.com/dev/invoice-api/internal/billing\t1.102s\nok  \tgithub.com/dev/invoice-api/internal/http\t2.874s\nok  \tgithub.com/dev/invoice-api/internal/pdf\t1.044s\nok  \tgithub.com/dev/invoice-api/internal/store\t3.391s\n")
	w.bash(s, "git add -A && git commit -m \"Credit notes\"", "Commit", secs(0.2), "[feature/credit-notes 1e7a5c3] Credit notes\n 6 files changed, 58 insertions(+), 1 deletion(-)\n")
	w.bash(s, "git push -u origin feature/credit-notes", "Push branch", secs(2.2), "branch 'feature/credit-notes' set up to track 'origin/feature/credit-notes'.\n")
	w.bash(s, "mkdir -p docs/api", "Create docs dir", secs(0.01), "")
	w.write(s, "docs/api/credit-notes.md", "# Credit notes\n\n`POST /invoices/{id}/credit-notes` with `{\"lines\": [{\"text\": ..., \"amount_cents\": ...}]}`.\nAmounts are positive in the request; the credit note's total is negative.\n")
	w.bash(s, "git add docs && git commit -m \"Document credit notes\"", "Commit docs", secs(0.2), "[feature/credit-notes 8c20d9e] Document credit notes\n 1 file changed, 4 insertions(+)\n")
	w.bash(s, "git push", "Push", secs(1.9), "To github.com:dev/invoice-api.git\n   1e7a5c3..8c20d9e  feature/credit-notes -> feature/credit-notes\n")
	w.think(s)
	s.end()
}

// Saturday: Hermes files a recipe.
func (w *week) saturdayNotes() {
	s := w.t.session("hermes", "20261128_102044_71c0f5", "", tapeTime("2026-11-28T10:20:44.000Z"))
	s.start()
	w.turn(s, "1", 11250)
	w.term(s, "ls ~/notes/recipes", secs(0.01), "bread.md\nlentil-soup.md\n")
	w.wfile(s, "/home/dev/notes/recipes/pumpkin-risotto.md", "# Pumpkin risotto\n\n300 g arborio, 500 g pumpkin, 1 l stock, 1 onion, parmesan.\nRoast the pumpkin first (200 °C, 25 min).\n")
	w.patch(s, "/home/dev/notes/inbox.md", "- [ ] save the risotto recipe\n", "")
	w.turn(s, "2", 12040)
	w.term(s, "git -C ~/notes add -A && git -C ~/notes commit -m 'pumpkin risotto'", secs(0.1), "[main 2f8a4d6] pumpkin risotto\n 2 files changed, 4 insertions(+), 1 deletion(-)\n")
	w.think(s)
	s.end()
}

// Sunday evening: Hermes writes the weekly review. The write_file result
// never lands while the session goes on — a real ghost: the listing two
// minutes later shows the file is not there.
func (w *week) sundayReview() {
	s := w.t.session("hermes", "20261129_214003_9a4d2e", "", tapeTime("2026-11-29T21:40:03.000Z"))
	s.start()
	w.turn(s, "1", 13804)
	w.term(s, "git -C ~/notes log --since='7 days ago' --oneline", secs(0.03), "2f8a4d6 pumpkin risotto\ne61b2f4 deploy checklist\n5a9c0e2 CI notes 2026-11-25\n0d3e5b1 reading list w48\n")
	w.term(s, "ls ~/notes/reviews", secs(0.01), "2026-w46.md\n2026-w47.md\n")
	w.turn(s, "1", 15120)
	s.at(tapeTime("2026-11-29T21:52:10.000Z"))
	lost := s.issue("write_file", map[string]any{
		"path":    "/home/dev/notes/reviews/2026-w48.md",
		"content": "# Week 48\n\n- invoice PDFs: merged to review, integration suite green (18m36s)\n- credit notes: branch pushed\n- dropped the legacy-api checkout\n- backups: retention raised to 14 daily\n",
	})
	s.at(tapeTime("2026-11-29T21:52:40.000Z"))
	w.turn(s, "1", 15766)
	s.at(tapeTime("2026-11-29T21:55:00.000Z"))
	lost.reported()
	w.turn(s, "2", 16215)
	w.term(s, "ls ~/notes/reviews", secs(0.01), "2026-w46.md\n2026-w47.md\n")
	w.turn(s, "2", 16688)
	s.at(tapeTime("2026-11-29T21:57:31.000Z"))
	s.end()
}

// Sunday late: a short Claude Code session whose last test run never
// reports back and nothing follows — a stale call.
func (w *week) sundayLate() {
	s := w.t.session("claude-code", "0f6b3d82-e4c9-4a17-b5d0-8c29e7a14f6b", apiDir, tapeTime("2026-11-29T23:38:12.000Z"))
	s.start()
	w.bash(s, "git status --short", "Show changes", secs(0.06), "")
	w.edit(s, "internal/billing/creditnote.go", "// CreditNote cancels all or part of an invoice.", "// CreditNote cancels all or part of an invoice. Its lines carry\n// positive amounts; TotalCents negates them.")
	s.at(tapeTime("2026-11-29T23:41:05.000Z"))
	s.issue("Bash", map[string]any{"command": "go test ./...", "description": "Run all tests"})
}
