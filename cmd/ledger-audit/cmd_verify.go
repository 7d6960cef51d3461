package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// verify walks each ledger's hash chain. It prints the head (row id and
// hash) so it can be anchored somewhere the agent cannot write, and takes
// an anchored head back with --anchor to prove nothing up to it changed.
func init() {
	c := &command{name: "verify", summary: "check a ledger's hash chain for edited, deleted or inserted rows", usage: "[--anchor ID:HASH] [--format text|json] LEDGER..."}
	c.run = func(e *env, args []string) error {
		fs := newFlags(e, c)
		anchorFlag := fs.String("anchor", "", "a head printed by an earlier verify (ID:HASH): also prove row ID still has that hash")
		format := fs.String("format", "text", "text or json")
		if err := parseFlags(e, c, fs, args); err != nil {
			return err
		}
		paths := fs.Args()
		if err := needLedgers(paths); err != nil {
			return err
		}
		if *format != "text" && *format != "json" {
			return usagef("--format: want text or json, not %q", *format)
		}
		var expect *ledger.Expect
		if *anchorFlag != "" {
			if len(paths) != 1 {
				return usagef("--anchor applies to one ledger; got %d", len(paths))
			}
			x, err := parseAnchor(*anchorFlag)
			if err != nil {
				return err
			}
			expect = x
		}
		var results []ledger.VerifyResult
		for _, p := range paths {
			res, err := ledger.Verify(p, expect)
			if err != nil {
				return err
			}
			results = append(results, res)
		}
		broken := 0
		for _, r := range results {
			if !r.OK() {
				broken++
			}
		}
		if *format == "json" {
			if err := writeVerifyJSON(e, results); err != nil {
				return err
			}
		} else {
			for _, r := range results {
				fmt.Fprintln(e.stdout, verifyLine(r))
			}
		}
		if broken > 0 {
			return gateError{fmt.Sprintf("hash chain broken in %d of %d ledger(s)", broken, len(results))}
		}
		return nil
	}
	register(c)
}

func parseAnchor(s string) (*ledger.Expect, error) {
	id, hash, ok := strings.Cut(s, ":")
	n, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil || n < 0 || len(hash) != 64 || strings.Trim(strings.ToLower(hash), "0123456789abcdef") != "" {
		return nil, usagef("--anchor: want ID:HASH as printed by verify (a row id and a 64-hex-digit hash), not %q", s)
	}
	return &ledger.Expect{ID: n, Hash: strings.ToLower(hash)}, nil
}

func verifyLine(r ledger.VerifyResult) string {
	if r.Break != nil {
		b := r.Break
		return fmt.Sprintf("%s: BROKEN at row %d (%s): %s", r.Path, b.Row, b.Kind, b.Detail)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: OK %d rows", r.Path, r.Rows)
	if r.Rows > 0 {
		fmt.Fprintf(&sb, " (%d–%d)", r.FirstID, r.LastID)
	}
	if r.AnchorID > 0 {
		fmt.Fprintf(&sb, " from prune checkpoint %d", r.AnchorID)
	}
	head := r.LastID
	if r.Rows == 0 {
		head = r.AnchorID
	}
	fmt.Fprintf(&sb, ", head %d:%s", head, r.HeadHash)
	return sb.String()
}

type verifyJSON struct {
	Ledger     string           `json:"ledger"`
	OK         bool             `json:"ok"`
	Rows       int64            `json:"rows"`
	FirstID    int64            `json:"first_id"`
	LastID     int64            `json:"last_id"`
	Head       string           `json:"head"` // ID:HASH, the value --anchor takes
	AnchorID   int64            `json:"checkpoint_id,omitempty"`
	AnchorHash string           `json:"checkpoint_hash,omitempty"`
	Break      *verifyBreakJSON `json:"break,omitempty"`
}

type verifyBreakJSON struct {
	Row          int64  `json:"row"`
	Kind         string `json:"kind"`
	FirstMissing int64  `json:"first_missing,omitempty"`
	LastMissing  int64  `json:"last_missing,omitempty"`
	Detail       string `json:"detail"`
}

func writeVerifyJSON(e *env, results []ledger.VerifyResult) error {
	out := make([]verifyJSON, 0, len(results))
	for _, r := range results {
		head := r.LastID
		if r.Rows == 0 {
			head = r.AnchorID
		}
		v := verifyJSON{Ledger: r.Path, OK: r.OK(), Rows: r.Rows, FirstID: r.FirstID, LastID: r.LastID,
			Head: fmt.Sprintf("%d:%s", head, r.HeadHash), AnchorID: r.AnchorID, AnchorHash: r.AnchorHash}
		if b := r.Break; b != nil {
			v.Head = ""
			v.Break = &verifyBreakJSON{b.Row, string(b.Kind), b.FirstMissing, b.LastMissing, b.Detail}
		}
		out = append(out, v)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
