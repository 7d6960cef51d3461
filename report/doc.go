// Package report renders an analyze.Result: one Reporter interface, one
// file per format (table, md, json, pdf, sarif, junit, telegram). It only
// formats; it never computes findings or touches a ledger, and any format
// can be re-rendered from the canonical JSON.
package report
