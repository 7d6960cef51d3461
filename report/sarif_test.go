package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ledger-audit/ledger-audit/analyze"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the SARIF 2.1.0 schema shipped under testdata, with
// format assertions on so "uri" and "uri-reference" values are checked.
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "file:///testdata/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, data []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF output does not validate against the 2.1.0 schema: %v", err)
	}
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	sch := compileSARIFSchema(t)
	// The schema must be able to fail: a result without a message is
	// invalid SARIF.
	bad := []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"R"}]}]}`)
	if inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad)); sch.Validate(inst) == nil {
		t.Fatal("schema accepted a result without a message: the schema file is not doing its job")
	}
	validateSARIF(t, sch, render(t, "sarif", Options{}, fixtureResult()))
	empty := &analyze.Result{SchemaVersion: 1, GeneratedAt: fixtureNow, TrustModel: analyze.TrustModel}
	validateSARIF(t, sch, render(t, "sarif", Options{}, empty))
}

// TestSARIFGitHubRequirements checks what GitHub code scanning needs beyond
// the schema: a location on every result, a security-severity and tags on
// every rule, fingerprints, and rules for every ruleId.
func TestSARIFGitHubRequirements(t *testing.T) {
	r := fixtureResult()
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string                `json:"id"`
						Short      struct{ Text string } `json:"shortDescription"`
						Full       struct{ Text string } `json:"fullDescription"`
						Help       struct{ Text, Markdown string }
						Properties map[string]any `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct {
							StartLine int64 `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Suppressions        []any             `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(render(t, "sarif", Options{}, r), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	sev := map[string]string{}
	for _, rl := range run.Tool.Driver.Rules {
		s, _ := rl.Properties["security-severity"].(string)
		if s == "" || rl.Short.Text == "" || rl.Full.Text == "" || rl.Help.Text == "" || rl.Help.Markdown == "" {
			t.Errorf("rule %s lacks descriptions, help or security-severity", rl.ID)
		}
		if tags, _ := rl.Properties["tags"].([]any); len(tags) == 0 {
			t.Errorf("rule %s has no tags", rl.ID)
		}
		if strings.HasPrefix(rl.ID, "ASI11") && !strings.Contains(rl.Help.Text, "community extension") {
			t.Errorf("rule %s: ASI11 help does not say it is a community extension", rl.ID)
		}
		sev[rl.ID] = s
	}
	if len(run.Tool.Driver.Rules) != len(r.Rules) {
		t.Errorf("driver has %d rules, want every rule of the result (%d), including those without findings", len(run.Tool.Driver.Rules), len(r.Rules))
	}
	want := map[string]string{"CRITICAL": "9.0", "HIGH": "7.0", "MEDIUM": "5.0", "LOW": "3.0"}
	if len(run.Results) != len(r.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(r.Findings))
	}
	for i, res := range run.Results {
		f := r.Findings[i]
		if res.RuleID != f.RuleID || run.Tool.Driver.Rules[res.RuleIndex].ID != f.RuleID {
			t.Errorf("result %d: ruleId/ruleIndex do not point at %s", i, f.RuleID)
		}
		if sev[f.RuleID] != want[f.Severity.String()] {
			t.Errorf("%s: security-severity %s for %s", f.RuleID, sev[f.RuleID], f.Severity)
		}
		if len(res.Locations) == 0 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("result %d has no location", i)
			continue
		}
		if got := res.Locations[0].PhysicalLocation.Region.StartLine; got != f.Evidence[0].Row {
			t.Errorf("result %d: startLine %d, want row %d", i, got, f.Evidence[0].Row)
		}
		if res.PartialFingerprints["ledgerAuditFingerprint/v1"] != f.Fingerprint {
			t.Errorf("result %d: partial fingerprint is not the finding fingerprint", i)
		}
		if f.Suppressed != (len(res.Suppressions) > 0) {
			t.Errorf("result %d: suppressed=%v but SARIF suppressions=%d", i, f.Suppressed, len(res.Suppressions))
		}
	}
	// Non-ASCII absolute paths become percent-encoded file URIs.
	if uri := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "file:///home/zo%C3%AB/.hermes/ledger.db" {
		t.Errorf("artifact URI = %q", uri)
	}
}

func TestSARIFURI(t *testing.T) {
	for in, want := range map[string]string{
		"samples/week-mixed.db":  "samples/week-mixed.db",
		"./ledger.db":            "ledger.db",
		"/var/lib/a b/ledger.db": "file:///var/lib/a%20b/ledger.db",
		"":                       "ledger",
		"données/ledger.db":      "donn%C3%A9es/ledger.db",
	} {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %q, want %q", in, got, want)
		}
	}
}
