package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/ledger-audit/ledger-audit/finding"
)

// jsonReporter writes the canonical Result: indented, struct field order,
// map keys sorted (encoding/json does this), empty lists as [] rather than
// null, and no HTML escaping so commands read as they were typed. Every
// other format can be re-rendered from it (ReadJSON).
type jsonReporter struct{}

func (jsonReporter) Render(w io.Writer, r *analyze.Result) error {
	b, err := MarshalJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// MarshalJSON returns the canonical JSON form of r, newline-terminated.
func MarshalJSON(r *analyze.Result) ([]byte, error) {
	c := canonical(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encoding result: %w", err)
	}
	return buf.Bytes(), nil
}

// canonical returns a shallow copy of r whose always-present lists are
// non-nil, so consumers see [] and a decode/encode round trip is exact.
func canonical(r *analyze.Result) *analyze.Result {
	c := *r
	if c.SchemaVersion == 0 {
		c.SchemaVersion = analyze.SchemaVersion
	}
	if c.Ledgers == nil {
		c.Ledgers = []analyze.LedgerSummary{}
	}
	if c.Ghosts == nil {
		c.Ghosts = []analyze.Ghost{}
	}
	if c.Findings == nil {
		c.Findings = []finding.Finding{}
	}
	if c.Summary.Sessions == nil {
		c.Summary.Sessions = []analyze.SessionSummary{}
	}
	if c.Summary.ByTool == nil {
		c.Summary.ByTool = map[string]int{}
	}
	if c.Summary.ByStatus == nil {
		c.Summary.ByStatus = map[string]int{}
	}
	if c.Score.Counts == nil {
		c.Score.Counts = map[string]int{}
	}
	if c.Score.Categories == nil {
		c.Score.Categories = []finding.CategoryTotal{}
	}
	return &c
}

// SchemaError is returned by ReadJSON for a result of another
// schema_version: the caller should say so and exit 2.
type SchemaError struct {
	Name      string
	Got, Want int
}

func (e *SchemaError) Error() string {
	if e.Got == 0 {
		return fmt.Sprintf("%s: not a ledger-audit result (no schema_version)", e.Name)
	}
	return fmt.Sprintf("%s: result schema_version %d, this build reads %d (re-run the audit with this version)", e.Name, e.Got, e.Want)
}

// ReadJSON decodes a canonical Result written by the json format. name is
// the file name used in error messages. A result of another schema
// version is refused with a *SchemaError rather than half-read.
func ReadJSON(rd io.Reader, name string) (*analyze.Result, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %v", name, err)
	}
	if head.SchemaVersion != analyze.SchemaVersion {
		return nil, &SchemaError{Name: name, Got: head.SchemaVersion, Want: analyze.SchemaVersion}
	}
	var r analyze.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &r, nil
}
