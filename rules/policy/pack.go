package policy

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ledger-audit/ledger-audit/finding"
	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"gopkg.in/yaml.v3"
)

// Pack is a named, versioned set of rules.
type Pack struct {
	Name        string  `yaml:"name"`
	Version     string  `yaml:"version"`
	Description string  `yaml:"description"`
	Rules       []*Rule `yaml:"rules"`
	// Source is where the pack came from ("builtin:default" or a path).
	Source string `yaml:"-"`

	// data is the pack's text, kept to find rule lines when one is
	// first needed (an error, a failing example): finding them takes a
	// second YAML parse, which was a quarter of a one-shot check's time.
	data      []byte
	linesOnce sync.Once
}

// Rule is one policy rule. Its ID doubles as the posture rule id of the
// findings built from its hits.
type Rule struct {
	ID          string           `yaml:"id"`
	Title       string           `yaml:"title"`
	Severity    finding.Severity `yaml:"severity"`
	Category    finding.Category `yaml:"category"`
	Action      Action           `yaml:"action"`
	Tools       []string         `yaml:"tools"`
	Tags        []string         `yaml:"tags"`
	Reason      string           `yaml:"reason"`
	Remediation string           `yaml:"remediation"`
	Match       []*Matcher       `yaml:"match"`
	Examples    Examples         `yaml:"examples"`

	line int
}

// Examples are inputs the rule must and must not match. A plain string
// is a terminal command; "TOOL: ARGS-JSON" is any tool call, and several
// calls of one session are joined with " ;;; " (a split attack).
type Examples struct {
	Match   []string `yaml:"match"`
	NoMatch []string `yaml:"no_match"`
}

// Matcher is one way a rule can match. Every condition given must hold;
// a rule matches when any of its matchers does. Matchers with Paths look
// at file tools (write_file, Write, Edit, Read, ...); the others look at
// the commands of shell tools and interpreter code.
type Matcher struct {
	Programs   []string `yaml:"programs"`
	Subcommand []string `yaml:"subcommand"`
	FlagsAny   []string `yaml:"flags_any"`
	FlagsAll   []string `yaml:"flags_all"`
	FlagsNone  []string `yaml:"flags_none"`
	ArgsAny    []string `yaml:"args_any"`
	ArgsNone   []string `yaml:"args_none"`
	ArgsRegex  string   `yaml:"args_regex"`
	ArgsNotRe  string   `yaml:"args_not_regex"`
	Targets    []string `yaml:"targets"`
	Except     []string `yaml:"except_targets"`
	// Unresolved says what an argument whose value is unknown ($X,
	// "$(cat f)") counts as in a target position: "suspect" (a match,
	// noted evasion-suspect) or "ignore" (the default).
	Unresolved string   `yaml:"unresolved_target"`
	Reads      []string `yaml:"reads"`
	Writes     []string `yaml:"writes"`
	CodeFrom   []string `yaml:"code_from"`
	StdinFrom  []string `yaml:"stdin_from"`
	// ArgsFrom: some argument is the output of one of these programs
	// (a command substitution, or words xargs read from a pipe:
	// "lsblk -dpno NAME | xargs wipefs -a").
	ArgsFrom []string `yaml:"args_from"`
	// ArgsNotFrom: no argument is the output of one of these ("kubectl
	// get pods ... | xargs kubectl delete": pods are recreated).
	ArgsNotFrom []string `yaml:"args_not_from"`
	StdinRe     string   `yaml:"stdin_regex"`
	// StdinNotRe excuses a match of stdin_regex when it also matches at
	// the same place ("DROP DATABASE app_test" is scratch).
	StdinNotRe string   `yaml:"stdin_not_regex"`
	NotVia     []string `yaml:"not_via"`
	// FileOK: the matcher does not hold when the end of the command's
	// pipeline writes its output to a file ("vault kv get ... | jq ... >
	// ~/.config/app/credentials"): the value goes where it is kept, and
	// a later read of that file is a read of the secret.
	FileOK bool `yaml:"file_ok"`
	// DirNot: the matcher does not hold when the command acts in a known
	// directory matching one of these globs: the session's "cd", or a
	// "-C DIR" (git, make). A scratch clone under /tmp holds no one's
	// work.
	DirNot []string `yaml:"dir_not"`
	// Dir: the matcher holds only when the command acts in a known
	// directory matching one of these globs (a server's deployment
	// tree, /opt/mailcow, rather than a developer's checkout).
	Dir []string `yaml:"dir"`
	// ReadFrom limits reads to "args" or "stdin" ("<" redirects); both
	// by default.
	ReadFrom  string   `yaml:"read_from"`
	Notes     []string `yaml:"notes"`
	Via       []string `yaml:"via"`
	Piped     *bool    `yaml:"piped"`
	TextRegex string   `yaml:"text_regex"`
	// TextNotRegex: the matcher does not hold when the source text, the
	// normalised command or a substitution one of its values came from
	// matches ("for ns in $(kubectl get ns -l preview=true); do kubectl
	// delete ns $ns": the listing names what is deleted).
	TextNotRegex string `yaml:"text_not_regex"`
	// PatternAny: the search pattern of grep/egrep/rg (-e, -E, -F, -i,
	// -v honoured) selects one of these lines: "env | grep AWS" prints
	// AWS_SECRET_ACCESS_KEY, "env | grep AWS_REGION" does not.
	PatternAny []string `yaml:"pattern_any"`
	// WriteMode narrows writes to "replace" (">", tee without -a, cp,
	// truncate: the old content is gone) or "append"; any by default.
	WriteMode string `yaml:"write_mode"`
	// StdinNotOnly: the matcher does not hold when everything feeding
	// the command's stdin is one of these programs
	// ("crontab -l | grep -v x | crontab -" only removes entries).
	StdinNotOnly []string `yaml:"stdin_not_only"`
	// UnknownRe: the name of some variable left unresolved in the
	// arguments matches ("echo $OPENAI_API_KEY"; a literal
	// 'cat $X' in single quotes is text, not a variable).
	UnknownRe string `yaml:"unknown_regex"`
	// UnknownNotVendor: a variable matched by unknown_regex does not
	// count when its name starts with the vendor that every URL of the
	// request belongs to (ETHERSCAN_API_KEY in a query to
	// api.etherscan.io): an API key sent to its own API is its use.
	UnknownNotVendor bool `yaml:"unknown_not_vendor"`
	// EnvNotRe: no NAME=value assignment made for the command alone
	// ("RAILS_ENV=test rails db:reset") matches.
	EnvNotRe string `yaml:"env_not_regex"`
	// EnvRe: some NAME=value of the command's environment (its own
	// assignments and the selectors set earlier in the session) matches.
	EnvRe     string   `yaml:"env_regex"`
	Paths     []string `yaml:"paths"`
	Access    string   `yaml:"access"`
	ContentRe string   `yaml:"content_regex"`
	// ContentNotRe: with writes or paths, a write whose text matches
	// does not count (an authorized_keys line whose forced command is a
	// backup server's opens no shell).
	ContentNotRe string `yaml:"content_not_regex"`
	// IntoNotRe: the matcher does not hold when the command's output is
	// piped into a stage matching this ("| jq keys", "| wc -l": what is
	// printed is a count or the names, not the secret).
	IntoNotRe string `yaml:"into_not_regex"`
	// IntoRe: some later stage of the command's pipeline matches
	// ("gcloud auth print-access-token | curl -d @- URL").
	IntoRe string `yaml:"into_regex"`

	argsRe, argsNotRe, textRe, textNotRe, contentRe, contentNotRe, stdinRe, stdinNotRe, envNotRe, envRe, unknownRe, intoNotRe, intoRe *refilter.Regexp
	targets, except, reads, writes, paths                                                                                             []*glob
	programs, subcmd                                                                                                                  []*glob
	argsAny, argsNone, via, notVia, dirNot, dir                                                                                       []*glob

	// need are the view features (viewHas*) the matcher cannot hold
	// without, set by compile.
	need uint8
}

//go:embed packs/*.yaml
var builtinFS embed.FS

// BuiltinNames lists the embedded packs.
func BuiltinNames() []string {
	ents, _ := builtinFS.ReadDir("packs")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Builtin loads an embedded pack by name.
func Builtin(name string) (*Pack, error) {
	data, err := builtinFS.ReadFile("packs/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in pack %q (have %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	return load("builtin:"+name, data, true)
}

// Resolve loads a pack given as a built-in name or a file path.
func Resolve(nameOrPath string) (*Pack, error) {
	if !strings.ContainsAny(nameOrPath, "/\\.") {
		return Builtin(nameOrPath)
	}
	return LoadFile(nameOrPath)
}

// Default returns an engine over the built-in default pack.
func Default() (*Engine, error) {
	p, err := Builtin("default")
	if err != nil {
		return nil, err
	}
	return NewEngine(p), nil
}

// LoadFile reads and validates a pack file.
func LoadFile(p string) (*Pack, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return Load(p, data)
}

// LoadError is a problem in a pack file, with the line it is on.
type LoadError struct {
	File string
	Line int
	Msg  string
	// Failures lists the examples that contradict their rule.
	Failures []ExampleResult
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var yamlLineRe = regexp.MustCompile(`line (\d+): `)

// Load parses and validates a pack: YAML syntax, unknown fields, required
// fields, regexes and globs, duplicate rule ids. It does not run the
// examples (see Pack.Test); LoadChecked does both.
func Load(file string, data []byte) (*Pack, error) {
	return load(file, data, false)
}

// load is Load. builtin packs (embedded, and loaded strictly by the
// tests: TestBuiltinPacksLoadStrictly) skip parsing their thousand
// regexps and globs up front; each is parsed and compiled when first
// used. A one-shot check, which the enforce-mode hook runs before every
// tool call, spent a third of its time validating patterns it never ran.
func load(file string, data []byte, builtin bool) (*Pack, error) {
	p := &Pack{Source: file, data: data}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &LoadError{File: file, Msg: "empty pack"}
		}
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
		line := 0
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.Replace(msg, m[0], "", 1)
		}
		if i := strings.Index(msg, "\n"); i >= 0 {
			msg = msg[:i]
		}
		return nil, &LoadError{File: file, Line: line, Msg: strings.TrimSpace(msg)}
	}
	for i, r := range p.Rules {
		if r == nil {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("rule %d is empty", i+1)}
		}
	}
	if err := p.validate(!builtin); err != nil {
		return nil, err
	}
	return p, nil
}

// ruleLine is the line rule r starts on in the pack's text (0 when the
// pack was built in code).
func (p *Pack) ruleLine(r *Rule) int {
	p.linesOnce.Do(func() {
		if p.data == nil {
			return
		}
		var root yaml.Node
		_ = yaml.Unmarshal(p.data, &root)
		lines := ruleLines(&root)
		for i, r := range p.Rules {
			if i < len(lines) && r != nil {
				r.line = lines[i]
			}
		}
	})
	return r.line
}

// ruleLines finds the line of each rule in the YAML tree.
func ruleLines(root *yaml.Node) []int {
	if root == nil || len(root.Content) == 0 {
		return nil
	}
	doc := root.Content[0]
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "rules" {
			var out []int
			for _, r := range doc.Content[i+1].Content {
				out = append(out, r.Line)
			}
			return out
		}
	}
	return nil
}

var ruleIDRe = regexp.MustCompile(`^[A-Z0-9][A-Z0-9_.-]*$`)

// validate checks the pack; strict parses every regexp and glob (see
// load for when it does not).
func (p *Pack) validate(strict bool) error {
	fail := func(line int, format string, a ...any) error {
		return &LoadError{File: p.Source, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	if strings.TrimSpace(p.Name) == "" {
		return fail(1, "pack has no name")
	}
	if len(p.Rules) == 0 {
		return fail(1, "pack %q has no rules", p.Name)
	}
	seen := map[string]*Rule{}
	for _, r := range p.Rules {
		if !ruleIDRe.MatchString(r.ID) {
			return fail(p.ruleLine(r), "rule id %q: want upper-case letters, digits, '-', '_' or '.'", r.ID)
		}
		if first, dup := seen[r.ID]; dup {
			return fail(p.ruleLine(r), "duplicate rule id %s (first at line %d)", r.ID, p.ruleLine(first))
		}
		seen[r.ID] = r
		if r.Severity == 0 {
			return fail(p.ruleLine(r), "rule %s: severity is required (critical, high, medium or low)", r.ID)
		}
		if !r.Category.Valid() {
			return fail(p.ruleLine(r), "rule %s: unknown OWASP category %q (want ASI01..ASI10 or ASI11)", r.ID, r.Category)
		}
		switch r.Action {
		case ActionBlock, ActionWarn:
		case "":
			return fail(p.ruleLine(r), "rule %s: action is required (block or warn)", r.ID)
		default:
			return fail(p.ruleLine(r), "rule %s: unknown action %q (want block or warn)", r.ID, r.Action)
		}
		if strings.TrimSpace(r.Reason) == "" {
			return fail(p.ruleLine(r), "rule %s: reason is required (it is what the agent is told)", r.ID)
		}
		if len(r.Tools) == 0 {
			return fail(p.ruleLine(r), "rule %s: tools is required", r.ID)
		}
		if len(r.Match) == 0 {
			return fail(p.ruleLine(r), "rule %s: match is required", r.ID)
		}
		for _, t := range r.Tags {
			if !knownTags[t] {
				return fail(p.ruleLine(r), "rule %s: unknown tag %q (see rules/policy/README.md)", r.ID, t)
			}
		}
		for i, m := range r.Match {
			if m == nil {
				return fail(p.ruleLine(r), "rule %s: match %d is empty", r.ID, i+1)
			}
			if err := m.compile(strict); err != nil {
				return fail(p.ruleLine(r), "rule %s: match %d: %v", r.ID, i+1, err)
			}
		}
	}
	return nil
}

// knownTags is the tag vocabulary (README.md). Cross-call chains in the
// audit key on these, so a typo would silently break a chain.
var knownTags = map[string]bool{
	"destructive": true, "pipe-to-shell": true, "credential-read": true, "network-send": true,
	"archive": true, "package-install": true, "sudo": true, "persistence": true,
	"history-tamper": true, "security-disable": true, "eval": true, "encoded-payload": true,
	"sensitive-write": true, "force-push": true, "fork-bomb": true, "evasion": true,
	"disk-wipe": true, "permissions": true, "secret-env": true, "metadata-endpoint": true,
	"remote-exec": true,
}

func (m *Matcher) compile(strict bool) error {
	var err error
	re := func(s string) (*refilter.Regexp, error) {
		if s == "" {
			return nil, nil
		}
		if !strict {
			return refilter.MustCompile(s), nil
		}
		r, e := refilter.Compile(s)
		if e != nil {
			return nil, fmt.Errorf("bad regex %q: %v", s, e)
		}
		return r, nil
	}
	if m.argsRe, err = re(m.ArgsRegex); err != nil {
		return err
	}
	if m.argsNotRe, err = re(m.ArgsNotRe); err != nil {
		return err
	}
	if m.textRe, err = re(m.TextRegex); err != nil {
		return err
	}
	if m.textNotRe, err = re(m.TextNotRegex); err != nil {
		return err
	}
	if m.intoNotRe, err = re(m.IntoNotRe); err != nil {
		return err
	}
	if m.intoRe, err = re(m.IntoRe); err != nil {
		return err
	}
	if m.envRe, err = re(m.EnvRe); err != nil {
		return err
	}
	if m.envNotRe, err = re(m.EnvNotRe); err != nil {
		return err
	}
	if m.unknownRe, err = re(m.UnknownRe); err != nil {
		return err
	}
	switch m.WriteMode {
	case "", "replace", "append":
	default:
		return fmt.Errorf("write_mode %q: want replace or append", m.WriteMode)
	}
	if m.contentRe, err = re(m.ContentRe); err != nil {
		return err
	}
	if m.contentNotRe, err = re(m.ContentNotRe); err != nil {
		return err
	}
	if m.contentNotRe != nil && len(m.Writes)+len(m.Paths) == 0 {
		return errors.New("content_not_regex needs writes or paths")
	}
	if m.stdinRe, err = re(m.StdinRe); err != nil {
		return err
	}
	if m.stdinNotRe, err = re(m.StdinNotRe); err != nil {
		return err
	}
	if m.stdinNotRe != nil && m.stdinRe == nil {
		return errors.New("stdin_not_regex needs stdin_regex")
	}
	for _, g := range []struct {
		src []string
		dst *[]*glob
		pth bool
	}{
		{m.Targets, &m.targets, true}, {m.Except, &m.except, true}, {m.Reads, &m.reads, true},
		{m.Writes, &m.writes, true}, {m.Paths, &m.paths, true}, {m.Programs, &m.programs, false},
		{m.Subcommand, &m.subcmd, false}, {m.ArgsAny, &m.argsAny, false}, {m.ArgsNone, &m.argsNone, false},
		{m.Via, &m.via, false}, {m.NotVia, &m.notVia, false}, {m.DirNot, &m.dirNot, true}, {m.Dir, &m.dir, true},
	} {
		for _, s := range g.src {
			gl, e := compileGlobChecked(s, g.pth, strict)
			if e != nil {
				return fmt.Errorf("bad glob %q: %v", s, e)
			}
			*g.dst = append(*g.dst, gl)
		}
	}
	for _, specs := range [][]string{m.CodeFrom, m.StdinFrom, m.ArgsFrom, m.ArgsNotFrom} {
		for _, spec := range specs {
			if _, flags, ok := strings.Cut(spec, ":"); ok && specPattern(flags) != "" {
				if _, e := compileSpec(specPattern(flags)); e != nil {
					return fmt.Errorf("bad regex in source %q: %v", spec, e)
				}
			}
		}
	}
	switch m.Unresolved {
	case "", "ignore", "suspect":
	default:
		return fmt.Errorf("unresolved_target %q: want suspect or ignore", m.Unresolved)
	}
	switch m.ReadFrom {
	case "", "any", "args", "stdin":
	default:
		return fmt.Errorf("read_from %q: want args, stdin or any", m.ReadFrom)
	}
	switch m.Access {
	case "", "any", "read", "write":
	default:
		return fmt.Errorf("access %q: want read, write or any", m.Access)
	}
	if len(m.Paths) > 0 && (len(m.Programs) > 0 || len(m.Targets) > 0) {
		return errors.New("paths (file tools) cannot be combined with programs/targets (commands) in one matcher")
	}
	if m.Empty() {
		return errors.New("matcher has no condition")
	}
	m.need = m.needs()
	return nil
}

// Empty reports whether the matcher has no condition at all (it would
// match everything).
func (m *Matcher) Empty() bool {
	return len(m.Programs)+len(m.Subcommand)+len(m.FlagsAny)+len(m.FlagsAll)+len(m.ArgsAny)+
		len(m.Targets)+len(m.Reads)+len(m.Writes)+len(m.CodeFrom)+len(m.StdinFrom)+len(m.ArgsFrom)+len(m.Notes)+len(m.Via)+len(m.Paths)+len(m.PatternAny) == 0 &&
		m.ArgsRegex == "" && m.TextRegex == "" && m.ContentRe == "" && m.StdinRe == "" && m.UnknownRe == "" && m.EnvRe == "" && m.IntoRe == ""
}

func baseOf(s string) string { return path.Base(s) }
