package analyze

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Guardrail threshold keys, as spelled in Hermes' config.yaml.
const (
	LoopExactFailure         = "exact_failure"
	LoopSameToolFailure      = "same_tool_failure"
	LoopIdempotentNoProgress = "idempotent_no_progress"
	LoopCapWebSearches       = "max_web_searches"
	LoopCapSubagents         = "max_subagents"
)

// IdenticalCallThreshold is Hermes' fixed identical-call notice point
// (STALL_GUARD_IDENTICAL_CALL_THRESHOLD): the notice fires on the 3rd
// consecutive identical (tool, args, result) call. It is not configurable.
const IdenticalCallThreshold = 3

// DefaultLoopConfig is Hermes' documented tool_loop_guardrails default.
func DefaultLoopConfig() LoopConfig {
	return LoopConfig{
		Source:                 "defaults",
		WarningsEnabled:        true,
		HardStopEnabled:        false,
		NonInteractiveHardStop: true,
		WarnAfter:              map[string]int{LoopExactFailure: 2, LoopSameToolFailure: 3, LoopIdempotentNoProgress: 2},
		HardStopAfter:          map[string]int{LoopExactFailure: 5, LoopSameToolFailure: 8, LoopIdempotentNoProgress: 5},
		LoopCaps:               map[string]int{LoopCapWebSearches: 50, LoopCapSubagents: 50},
	}
}

// HermesConfigPath is where Hermes keeps config.yaml: $HERMES_HOME, else
// ~/.hermes. getenv is injected so the CLI can be tested.
func HermesConfigPath(getenv func(string) string) string {
	home := getenv("HERMES_HOME")
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			h, _ = os.UserHomeDir()
		}
		home = filepath.Join(h, ".hermes")
	}
	return filepath.Join(home, "config.yaml")
}

// LoadLoopConfig reads the tool_loop_guardrails block of a Hermes
// config.yaml. A missing file gives the defaults when required is false
// (the default path), and an error when it is true (a path the user
// named). A file without the block gives the defaults with Source set to
// the file. Any other problem is an error "<file>: <problem>".
//
// Hermes itself silently falls back to a default for a junk value; an
// audit that silently replays different thresholds than the user thinks
// would mislead, so junk values are errors here.
func LoadLoopConfig(path string, required bool) (LoopConfig, error) {
	cfg := DefaultLoopConfig()
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return cfg, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return cfg, fmt.Errorf("%s: %v", path, err)
	}
	cfg.Source = path
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 { // empty file
		return cfg, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return cfg, fmt.Errorf("%s: line %d: top level is not a mapping", path, root.Line)
	}
	block := mapGet(root, "tool_loop_guardrails")
	if block == nil || block.Tag == "!!null" {
		return cfg, nil
	}
	if block.Kind != yaml.MappingNode {
		return cfg, fmt.Errorf("%s: line %d: tool_loop_guardrails is not a mapping", path, block.Line)
	}
	if err := applyGuardrails(&cfg, block); err != nil {
		return cfg, fmt.Errorf("%s: %v", path, err)
	}
	return cfg, nil
}

func applyGuardrails(cfg *LoopConfig, block *yaml.Node) error {
	for _, b := range []struct {
		key string
		dst *bool
	}{
		{"warnings_enabled", &cfg.WarningsEnabled},
		{"hard_stop_enabled", &cfg.HardStopEnabled},
		{"non_interactive_hard_stop_enabled", &cfg.NonInteractiveHardStop},
	} {
		if n := mapGet(block, b.key); n != nil {
			v, err := yamlBool(n)
			if err != nil {
				return fmt.Errorf("line %d: tool_loop_guardrails.%s: %v", n.Line, b.key, err)
			}
			*b.dst = v
		}
	}
	// Flat legacy keys first; the nested sections win, as in Hermes.
	legacy := []struct{ flat, section, key string }{
		{"exact_failure_warn_after", "warn_after", LoopExactFailure},
		{"same_tool_failure_warn_after", "warn_after", LoopSameToolFailure},
		{"no_progress_warn_after", "warn_after", LoopIdempotentNoProgress},
		{"exact_failure_block_after", "hard_stop_after", LoopExactFailure},
		{"same_tool_failure_halt_after", "hard_stop_after", LoopSameToolFailure},
		{"no_progress_block_after", "hard_stop_after", LoopIdempotentNoProgress},
	}
	for _, l := range legacy {
		if n := mapGet(block, l.flat); n != nil {
			v, err := yamlInt(n, 1)
			if err != nil {
				return fmt.Errorf("line %d: tool_loop_guardrails.%s: %v", n.Line, l.flat, err)
			}
			sectionMap(cfg, l.section)[l.key] = v
		}
	}
	sections := []struct {
		name string
		keys []string
		min  int
	}{
		{"warn_after", []string{LoopExactFailure, LoopSameToolFailure, LoopIdempotentNoProgress}, 1},
		{"hard_stop_after", []string{LoopExactFailure, LoopSameToolFailure, LoopIdempotentNoProgress}, 1},
		{"loop_caps", []string{LoopCapWebSearches, LoopCapSubagents}, 0}, // 0 disables a cap
	}
	for _, s := range sections {
		sec := mapGet(block, s.name)
		if sec == nil || sec.Tag == "!!null" {
			continue
		}
		if sec.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: tool_loop_guardrails.%s is not a mapping", sec.Line, s.name)
		}
		for _, k := range s.keys {
			n := mapGet(sec, k)
			if n == nil {
				continue
			}
			v, err := yamlInt(n, s.min)
			if err != nil {
				return fmt.Errorf("line %d: tool_loop_guardrails.%s.%s: %v", n.Line, s.name, k, err)
			}
			sectionMap(cfg, s.name)[k] = v
		}
	}
	return nil
}

func sectionMap(cfg *LoopConfig, name string) map[string]int {
	switch name {
	case "warn_after":
		return cfg.WarnAfter
	case "hard_stop_after":
		return cfg.HardStopAfter
	}
	return cfg.LoopCaps
}

// mapGet finds a key in a YAML mapping node (the last one wins, like a
// YAML loader that tolerates duplicates).
func mapGet(m *yaml.Node, key string) *yaml.Node {
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			found = m.Content[i+1]
		}
	}
	return found
}

// yamlBool accepts YAML booleans and the words Hermes' _as_bool accepts.
func yamlBool(n *yaml.Node) (bool, error) {
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "1", "true", "yes", "on", "enabled":
			return true, nil
		case "0", "false", "no", "off", "disabled":
			return false, nil
		}
	}
	return false, fmt.Errorf("want true or false, got %s", nodeText(n))
}

func yamlInt(n *yaml.Node, min int) (int, error) {
	if n.Kind == yaml.ScalarNode {
		if v, err := strconv.Atoi(strings.TrimSpace(n.Value)); err == nil && v >= min {
			return v, nil
		}
	}
	return 0, fmt.Errorf("want an integer ≥ %d, got %s", min, nodeText(n))
}

func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// attendedPlatforms are Hermes' interactive or supervised surfaces
// (_ATTENDED_PLATFORMS); any other named platform (telegram, discord,
// cron, ...) is unattended and hard-stops by default.
var attendedPlatforms = map[string]bool{"cli": true, "tui": true, "desktop": true, "acp": true, "subagent": true, "api_server": true}

// Interactive reports whether Hermes treats a platform as attended. An
// unknown (empty) platform counts as interactive, as in Hermes.
func Interactive(platform string) bool {
	p := strings.ToLower(strings.TrimSpace(platform))
	return p == "" || attendedPlatforms[p]
}

// HardStopFor is whether hard stops are on for a session on platform.
func (c LoopConfig) HardStopFor(platform string) bool {
	if c.NonInteractiveHardStop && !Interactive(platform) {
		return true
	}
	return c.HardStopEnabled
}

func (c LoopConfig) warnAfter(k string) int     { return c.WarnAfter[k] }
func (c LoopConfig) hardStopAfter(k string) int { return c.HardStopAfter[k] }

// normalized fills keys missing from a hand-built config with defaults,
// so a zero map entry never means "fire on the first call".
func (c LoopConfig) normalized() LoopConfig {
	d := DefaultLoopConfig()
	out := c
	out.WarnAfter, out.HardStopAfter, out.LoopCaps = fill(c.WarnAfter, d.WarnAfter, 1), fill(c.HardStopAfter, d.HardStopAfter, 1), fill(c.LoopCaps, d.LoopCaps, 0)
	if out.Source == "" {
		out.Source = d.Source
	}
	return out
}

func fill(m, def map[string]int, min int) map[string]int {
	out := make(map[string]int, len(def))
	for k, d := range def {
		v, ok := m[k]
		if !ok || v < min {
			v = d
		}
		out[k] = v
	}
	return out
}
