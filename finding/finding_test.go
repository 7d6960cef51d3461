package finding

import (
	"encoding/json"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 20, 39, 7, 0, time.UTC)

func rule(id string, c Category, s Severity) Rule {
	return Rule{ID: id, Category: c, Severity: s, Title: id}
}

func TestWeights(t *testing.T) {
	want := map[Severity]int{Critical: 25, High: 15, Medium: 8, Low: 3}
	for s, w := range want {
		if s.Weight() != w {
			t.Errorf("%s weight %d, want %d", s, s.Weight(), w)
		}
	}
	if Severity(0).Weight() != 0 {
		t.Error("unknown severity must weigh nothing")
	}
}

func TestComputeNeverDeduplicatesAndShowsFormula(t *testing.T) {
	del := rule("ASI02-DESTRUCTIVE-DELETE", ASI02, Critical)
	var fs []Finding
	for i := 0; i < 2; i++ { // the same rule on the same call twice: two findings
		fs = append(fs, New(del, "rm -rf", Evidence{Row: 7, TS: t0}))
	}
	fs = append(fs, New(rule("ASI05-PIPE-TO-SHELL", ASI05, High), "", Evidence{Row: 8, TS: t0}))
	for i := 0; i < 3; i++ {
		fs = append(fs, New(rule("ASI08-GHOST-CALL", ASI08, Medium), "", Evidence{Row: int64(10 + i), TS: t0}))
	}
	s := Compute(fs)
	if s.Score != 11 || s.Penalty != 89 {
		t.Fatalf("score %d penalty %d, want 11 and 89", s.Score, s.Penalty)
	}
	if s.Formula != "100 − (2×25 + 1×15 + 3×8) = 11" {
		t.Fatalf("formula %q", s.Formula)
	}
	if s.Counts["CRITICAL"] != 2 || s.Counts["LOW"] != 0 {
		t.Fatalf("counts %v", s.Counts)
	}
	var asi02 CategoryTotal
	for _, c := range s.Categories {
		if c.Category == ASI02 {
			asi02 = c
		}
		if c.Category == ASI11 && !c.Extension {
			t.Error("ASI11 must be labelled an extension")
		}
	}
	if asi02.Findings != 2 || asi02.Penalty != 50 {
		t.Fatalf("ASI02 subtotal %+v", asi02)
	}
}

func TestComputeFloorsAtZeroAndSkipsSuppressed(t *testing.T) {
	crit := rule("R", ASI02, Critical)
	var fs []Finding
	for i := 0; i < 5; i++ {
		fs = append(fs, New(crit, "", Evidence{Row: int64(i)}))
	}
	s := Compute(fs)
	if s.Score != 0 || s.Penalty != 125 || s.Formula != "max(0, 100 − (5×25)) = max(0, -25) = 0" {
		t.Fatalf("%+v", s)
	}
	fs[0].Suppressed = true
	s = Compute(fs)
	if s.Penalty != 100 || s.Suppressed != 1 {
		t.Fatalf("suppressed finding still counted: %+v", s)
	}
	if Compute(nil).Formula != "100 − 0 = 100" || Compute(nil).Score != 100 {
		t.Fatal("empty list must score 100")
	}
}

func TestSortIsDeterministic(t *testing.T) {
	low := New(rule("B", ASI08, Low), "", Evidence{Row: 1, TS: t0})
	highLate := New(rule("A", ASI02, High), "", Evidence{Row: 3, TS: t0.Add(time.Hour)})
	highEarly := New(rule("Z", ASI02, High), "", Evidence{Row: 2, TS: t0})
	highEarlyA := New(rule("A", ASI02, High), "", Evidence{Row: 4, TS: t0})
	fs := []Finding{low, highLate, highEarly, highEarlyA}
	Sort(fs)
	got := []int64{fs[0].Evidence[0].Row, fs[1].Evidence[0].Row, fs[2].Evidence[0].Row, fs[3].Evidence[0].Row}
	want := []int64{4, 2, 3, 1} // severity, then time, then rule id
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
}

func TestFingerprintStableAndSpecific(t *testing.T) {
	r := rule("ASI02-X", ASI02, High)
	a := New(r, "m1", Evidence{Ledger: "a.db", Row: 5, TS: t0, Session: "s", Excerpt: "rm -rf x"})
	b := New(r, "other message", Evidence{Ledger: "copy/of/a.db", Row: 5, TS: t0, Session: "s", Excerpt: "rm -rf x"})
	c := New(r, "m1", Evidence{Ledger: "a.db", Row: 6, TS: t0, Session: "s", Excerpt: "rm -rf x"})
	if a.Fingerprint != b.Fingerprint {
		t.Error("fingerprint must not depend on the ledger's file name or the message")
	}
	if a.Fingerprint == c.Fingerprint {
		t.Error("different rows must have different fingerprints")
	}
	if len(a.Fingerprint) != 16 {
		t.Errorf("fingerprint %q", a.Fingerprint)
	}
}

func TestSeverityJSONRoundTrip(t *testing.T) {
	b, err := json.Marshal(struct{ S Severity }{High})
	if err != nil || string(b) != `{"S":"HIGH"}` {
		t.Fatalf("%s %v", b, err)
	}
	var v struct{ S Severity }
	if err := json.Unmarshal([]byte(`{"S":"critical"}`), &v); err != nil || v.S != Critical {
		t.Fatalf("%v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"S":"severe"}`), &v); err == nil {
		t.Fatal("unknown severity accepted")
	}
}
