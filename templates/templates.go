// Package templates holds the text templates of the human-facing reports —
// the Markdown report and the Telegram HTML summary — embedded in the
// binary with go:embed so a report renders the same everywhere. The
// report package owns the data and the template functions; this package
// only owns the wording and layout, and never imports anything of ours.
package templates

import _ "embed"

// Markdown is the text/template source of the Markdown report.
//
//go:embed report.md.tmpl
var Markdown string

// TelegramHTML is the html/template source of the daily Telegram summary
// (Telegram's HTML parse mode: b, i, code, pre and a only).
//
//go:embed telegram.html.tmpl
var TelegramHTML string
