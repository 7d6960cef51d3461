// Package report renders an analyze.Result: one Reporter interface, one
// file per format (table, md, json, pdf, sarif, junit), plus the pieces of
// the daily report — the Telegram HTML summary and Bot API client
// (telegram.go), the JSONL score history (history.go) — and a stderr
// progress bar for long reads (progress.go).
//
// It only formats and delivers: it never computes findings, never probes
// the terminal (callers pass Options.Color and isTTY), and never touches a
// ledger. Any format can be re-rendered from the canonical JSON (ReadJSON).
package report
