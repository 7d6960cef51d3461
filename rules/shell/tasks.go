package shell

import (
	"encoding/json"
	"gopkg.in/yaml.v3"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Task runners run shell lines from files the session may have written
// or edited: make recipes and package.json scripts. "Edit Makefile to say
// rm -rf ~/, then make clean" is a script written in one call and run in
// another.

var makeTargetRe = refilter.MustCompile(`^([A-Za-z0-9_./%${}()-]+(?:[ \t]+[A-Za-z0-9_./%${}()-]+)*)[ \t]*::?(?:[^=]|$)`)

// makeRecipes returns the recipe lines of the given targets (the first
// target when none is given). Content that has no target lines at all (an
// edited fragment) is taken as recipe lines.
func makeRecipes(content string, targets []string) []string {
	var out []string
	var cur []string
	first := ""
	sawTarget := false
	byTarget := map[string][]string{}
	prefix := "\t"
	if m := recipePrefixRe.FindStringSubmatch(content); m != nil {
		// .RECIPEPREFIX = > : recipe lines start with ">" instead of a tab.
		prefix = m[1]
	}
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(line, prefix) {
			line = "\t" + strings.TrimPrefix(line, prefix)
			for _, t := range cur {
				byTarget[t] = append(byTarget[t], strings.TrimSpace(line))
			}
			continue
		}
		if m := makeTargetRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "#") {
			sawTarget = true
			cur = strings.Fields(m[1])
			if first == "" && len(cur) > 0 && !strings.HasPrefix(cur[0], ".") {
				first = cur[0]
			}
			// "all: deps ; recipe": a recipe on the rule's own line.
			if _, after, ok := strings.Cut(line[len(m[0])-1:], ";"); ok && strings.TrimSpace(after) != "" {
				for _, t := range cur {
					byTarget[t] = append(byTarget[t], strings.TrimSpace(after))
				}
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cur = nil
	}
	if !sawTarget {
		for _, line := range strings.Split(content, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return cleanRecipes(out)
	}
	if len(targets) == 0 && first != "" {
		targets = []string{first}
	}
	for _, t := range targets {
		out = append(out, byTarget[t]...)
	}
	// The Makefile's own variables (BUILD_DIR := ./build) in the recipes.
	var repl []string
	for _, m := range makeVarRe.FindAllStringSubmatch(content, 64) {
		v := strings.TrimSpace(m[2])
		repl = append(repl, "$("+m[1]+")", v, "${"+m[1]+"}", v)
	}
	if len(repl) > 0 {
		r := strings.NewReplacer(repl...)
		for i, l := range out {
			out[i] = r.Replace(l)
		}
	}
	return cleanRecipes(out)
}

var recipePrefixRe = refilter.MustCompile(`(?m)^\.RECIPEPREFIX[ \t]*:?=[ \t]*(\S)`)

// makeEnvDefs are the environment's values of the variables a Makefile
// uses and does not set itself (or sets only with ?=), as definitions
// that take precedence: make reads the environment as variables.
func makeEnvDefs(content string, env map[string]string) string {
	var b strings.Builder
	for name, v := range env {
		if !strings.Contains(content, "$("+name+")") && !strings.Contains(content, "${"+name+"}") {
			continue
		}
		set := false
		for _, m := range makeVarDefRe.FindAllStringSubmatch(content, 64) {
			if m[1] == name && m[2] != "?=" {
				set = true
			}
		}
		if !set {
			b.WriteString(name + " = " + v + "\n")
		}
	}
	return b.String()
}

var makeVarDefRe = refilter.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(::?=|\?=|\+=|=)`)

// makeVarRe is a Makefile variable definition: NAME = value, :=, ?=, ::=.
// The value ends at the line's end ("PREFIX ?=" defines it empty).
var makeVarRe = refilter.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::{1,2}|\?)?=[ \t]*([^\n#]*)`)

// makeShellCalls returns the commands of a line's $(shell ...) calls.
func makeShellCalls(l string) []string {
	var out []string
	for i := strings.Index(l, "$(shell "); i >= 0 && len(out) < 8; {
		start := i + len("$(shell ")
		depth, j := 1, start
		for ; j < len(l) && depth > 0; j++ {
			switch l[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		if depth != 0 {
			break
		}
		out = append(out, strings.TrimSpace(l[start:j-1]))
		next := strings.Index(l[j:], "$(shell ")
		if next < 0 {
			break
		}
		i = j + next
	}
	return out
}

func cleanRecipes(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimLeft(l, "@-+ \t")
		// make reads the environment as variables: $(HOME) is the home
		// directory, as ${HOME} is to the shell.
		l = strings.NewReplacer("$(HOME)", "$HOME", "${HOME}", "$HOME").Replace(l)
		// $(shell CMD) runs CMD when make expands the line, whatever
		// quotes the line puts around it: CMD is a command of its own.
		for _, sh := range makeShellCalls(l) {
			out = append(out, strings.ReplaceAll(sh, "$$", "$"))
		}
		out = append(out, strings.ReplaceAll(l, "$$", "$"))
	}
	return out
}

// runTask follows make and npm/yarn/pnpm/bun run into the recipes or
// scripts of a Makefile or package.json the session wrote.
func (w *walker) runTask(cmd *Command, c ctx) {
	args := cmd.Args
	switch cmd.Name {
	case "make", "gmake":
		file := ""
		for i, a := range args {
			if (a == "-f" || a == "--file") && i+1 < len(args) {
				file = args[i+1]
			}
		}
		names := []string{file}
		if file == "" {
			names = []string{"Makefile", "makefile", "GNUmakefile"}
		}
		targets := taskTargets(args, "-f", "--file", "-C")
		// Variables given on the command line ("make clean OUT=$HOME")
		// override the Makefile's own; read first, they win.
		var overrides strings.Builder
		for _, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok && validName(k) {
				overrides.WriteString(k + " = " + v + "\n")
			}
		}
		env := map[string]string{}
		for k, v := range w.st.Vars {
			if validName(k) && !Unknown(v) {
				env[k] = v
			}
		}
		for _, e := range cmd.Env {
			if k, v, ok := strings.Cut(e, "="); ok && validName(k) {
				env[k] = v
			}
		}
		w.runTaskFile(names, "make "+strings.Join(targets, " "), c, func(content string) []string {
			content = w.makeIncludes(content)
			return makeRecipes(overrides.String()+makeEnvDefs(content, env)+content, targets)
		})
	case "pip", "pip3", "uv", "pipx":
		// "pip install ." builds the project: setup.py runs.
		local := false
		for _, a := range args {
			if a == "." || a == "./" || strings.HasPrefix(a, "./") && !strings.Contains(a[2:], "/") && !strings.Contains(a, ".") {
				local = true
			}
		}
		if local && (slices.Contains(args, "install") || slices.Contains(args, "wheel")) {
			if key, f := w.st.LookupFile("setup.py"); f != nil && !f.Downloaded {
				cc := c.with(cmd.Name + " install . (setup.py)")
				cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
				w.sub("python3 setup.py install", cc, nil)
			}
		}
	case "invoke", "inv", "fab":
		// Python task runners: "invoke clean" runs tasks.py's clean().
		names := taskTargets(args, "-c", "--collection", "-r", "--search-root")
		files := []string{"tasks.py"}
		if cmd.Name == "fab" {
			files = []string{"fabfile.py"}
		}
		w.runTaskFile(files, cmd.Name+" "+strings.Join(names, " "), c, func(content string) []string {
			var out []string
			for _, n := range names {
				out = append(out, pyFuncBody(content, strings.ReplaceAll(n, "-", "_")))
			}
			return nil2empty(out)
		}, "python")
	case "task", "go-task":
		// go-task: "task setup" runs Taskfile.yml's tasks.setup.cmds.
		names := taskTargets(args, "-t", "--taskfile", "-d", "--dir")
		if len(names) == 0 {
			names = []string{"default"}
		}
		w.runTaskFile([]string{"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"}, "task "+strings.Join(names, " "), c, func(content string) []string {
			return taskfileCmds(content, names)
		})
	default:
		// Build and test tools that run code or commands from a project
		// file the session wrote or edited (Rakefile, conftest.py,
		// build.rs, tox.ini, a workflow run locally by act, ...).
		w.runTriggers(buildTriggers[cmd.Name], cmd, c)
		if cmd.Name == "pytest" || cmd.Name == "py.test" {
			// The test modules pytest collects are code it runs: the files
			// named, or under the directories named, or (with no
			// operands) every test_*.py / *_test.py the session wrote.
			// runTaskFile runs the first of its alternatives; pytest runs
			// every module it collects.
			for _, f := range w.pytestFiles(args) {
				w.runTaskFile([]string{f}, "pytest", c, func(content string) []string {
					return []string{content}
				}, "python")
			}
		}
	case "deno", "mise", "rtx", "composer", "poe":
		file, names := scriptRunner(cmd.Name, args)
		if file == nil {
			return
		}
		w.runTaskFile(file, cmd.Name+" "+strings.Join(names, " "), c, func(content string) []string {
			out := namedScripts(cmd.Name, content, names)
			if cmd.Name == "composer" {
				// "@php script.php" runs PHP; "@composer x" composer.
				for i, l := range out {
					if rest, ok := strings.CutPrefix(l, "@php "); ok {
						out[i] = "php " + rest
					} else if rest, ok := strings.CutPrefix(l, "@composer "); ok {
						out[i] = "composer " + rest
					}
				}
			}
			return out
		})
	case "conan":
		// "conan create recipes/x": the recipe's conanfile.py is Python
		// that Conan runs (its source() and build() methods call
		// self.run with command lines).
		if f := conanRecipe(args); f != "" {
			w.runTaskFile([]string{f}, "conan "+args[0], c, func(content string) []string {
				return []string{content}
			}, "python")
		}
	case "direnv":
		// "direnv allow", "direnv exec DIR CMD", "direnv reload": the
		// .envrc is sourced by a shell.
		if len(args) > 0 && (args[0] == "allow" || args[0] == "exec" || args[0] == "reload" || args[0] == "permit") {
			w.runTaskFile([]string{".envrc"}, "direnv "+args[0], c, func(content string) []string {
				return []string{content}
			})
		}
	case "systemctl":
		// "systemctl --user start x.service" (enable --now, restart): a
		// unit file the session wrote runs its Exec lines.
		var units []string
		verb := ""
		for _, a := range args {
			switch {
			case strings.HasPrefix(a, "-"):
			case verb == "":
				verb = a
			default:
				units = append(units, a)
			}
		}
		if verb != "start" && verb != "restart" && verb != "reload-or-restart" && verb != "try-restart" && !(verb == "enable" && (slices.Contains(args, "--now") || slices.Contains(args, "-now"))) {
			return
		}
		for _, u := range units {
			if !strings.Contains(u, ".") {
				u += ".service"
			}
			if base, ok := strings.CutSuffix(u, ".timer"); ok {
				u = base + ".service"
			}
			w.runTaskFile([]string{u}, "systemctl "+verb+" "+u, c, unitExecLines)
		}
	case "just":
		recipes := taskTargets(args, "-f", "--justfile", "-d", "--working-directory")
		files := []string{"justfile", "Justfile", ".justfile"}
		for i, a := range args {
			if (a == "-f" || a == "--justfile") && i+1 < len(args) {
				files = []string{args[i+1]}
			} else if v, ok := strings.CutPrefix(a, "--justfile="); ok {
				files = []string{v}
			}
		}
		w.runTaskFile(files, "just "+strings.Join(recipes, " "), c, func(content string) []string {
			lines := justRecipes(content, recipes)
			vars := justVars(content)
			for i, l := range lines {
				lines[i] = justInterp(vars.Replace(l))
			}
			return lines
		})
	case "npm", "pnpm", "yarn", "bun":
		if len(args) >= 3 && args[0] == "pkg" && args[1] == "set" {
			// "npm pkg set scripts.postinstall='curl … | sh'": the script
			// lands in package.json, where install runs it.
			for _, a := range args[2:] {
				if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "scripts.") {
					q, _ := json.Marshal(v)
					w.st.EditFile("package.json", "", `"`+strings.TrimPrefix(k, "scripts.")+`": `+string(q), "npm pkg set")
				}
			}
			return
		}
		script, install := "", cmd.Name == "yarn" // bare "yarn" installs
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if a == "install" || a == "i" || a == "ci" {
				// Installing the project (no package named) runs its own
				// lifecycle scripts.
				install = true
				for _, b := range args[i+1:] {
					if !strings.HasPrefix(b, "-") {
						install = false
					}
				}
				break
			}
			install = false
			if a == "run" || a == "run-script" {
				if i+1 < len(args) {
					script = args[i+1]
				}
				break
			}
			if a == "test" || a == "start" || a == "build" || a == "publish" || a == "pack" || cmd.Name != "npm" {
				script = a
			}
			break
		}
		scripts := []string{"pre" + script, script, "post" + script}
		switch script {
		case "publish":
			// npm publish packs first: prepublishOnly, prepack, prepare
			// and postpack run, then publish and postpublish.
			scripts = []string{"prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"}
		case "pack":
			scripts = []string{"prepack", "prepare", "postpack"}
		}
		if install {
			scripts = []string{"preinstall", "install", "postinstall", "prepare"}
		} else if script == "" {
			return
		}
		key, f := w.st.LookupFile("package.json")
		if f == nil || f.Downloaded {
			return
		}
		pkgScripts := packageScripts(f.Content)
		extra := ""
		if i := slices.Index(args, "--"); i >= 0 && !install {
			// "npm run clean -- ~": the words after -- go to the script.
			for _, a := range args[i+1:] {
				extra += " " + quote(a)
			}
		}
		for _, name := range scripts {
			if s, ok := pkgScripts[name]; ok {
				cc := c.with(cmd.Name + " run " + name)
				cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
				if name == script {
					s += extra
				}
				w.sub(s, cc, nil)
			}
		}
	}
}

// scriptRunner is the project file and the script names a runner of
// named scripts takes from its command line: deno task NAME (deno.json),
// mise run NAME (.mise.toml), composer run-script NAME or install
// (composer.json) and poe NAME (pyproject.toml); pdm and hatch run
// scripts through their wrappers.
func scriptRunner(name string, args []string) ([]string, []string) {
	ops := taskTargets(args, "-c", "--config", "-e", "--env", "-p", "--project")
	switch name {
	case "deno":
		if len(ops) >= 2 && ops[0] == "task" {
			return []string{"deno.json", "deno.jsonc"}, ops[1:2]
		}
	case "mise", "rtx":
		if len(ops) >= 2 && (ops[0] == "run" || ops[0] == "r") {
			return []string{".mise.toml", "mise.toml", ".config/mise.toml"}, ops[1:2]
		}
	case "composer":
		if len(ops) >= 2 && (ops[0] == "run-script" || ops[0] == "run") {
			return []string{"composer.json"}, ops[1:2]
		}
		if len(ops) >= 1 && (ops[0] == "install" || ops[0] == "update") && len(ops) == 1 {
			return []string{"composer.json"}, []string{"pre-" + ops[0] + "-cmd", "post-" + ops[0] + "-cmd", "post-autoload-dump"}
		}
	case "poe":
		if len(ops) >= 1 {
			return []string{"pyproject.toml", "poe_tasks.toml"}, ops[:1]
		}
	}
	return nil, nil
}

// namedScripts returns the command lines of the named scripts in a
// runner's project file: JSON "tasks"/"scripts" objects (deno.json,
// composer.json, whose values may be arrays) or TOML tables ([tasks.N]
// run = "...", [tool.poe.tasks] N = "..." or { shell/cmd = "..." }).
func namedScripts(runner, content string, names []string) []string {
	var out []string
	for _, n := range names {
		q := regexp.QuoteMeta(n)
		var res []*regexp.Regexp
		switch runner {
		case "deno", "composer":
			res = append(res, regexp.MustCompile(`"`+q+`"\s*:\s*("(?:[^"\\]|\\.)*")`),
				regexp.MustCompile(`"`+q+`"\s*:\s*\[\s*((?:"(?:[^"\\]|\\.)*"\s*,?\s*)+)\]`))
		case "mise", "rtx":
			res = append(res, regexp.MustCompile(`(?s)\[tasks\.`+q+`\][^\[]*?\brun\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')`),
				regexp.MustCompile(`(?m)^`+q+`\s*=\s*("(?:[^"\\]|\\.)*")`))
		default:
			res = append(res, regexp.MustCompile(`(?m)^`+q+`\s*=\s*(?:\{[^}\n]*?\b(?:shell|cmd)\s*=\s*)?("(?:[^"\\]|\\.)*"|'[^']*')`),
				// [tool.poe.tasks.N] with shell = "..." or cmd = "...".
				regexp.MustCompile(`(?s)\[tool\.poe\.tasks\.`+q+`\][^\[]*?\b(?:shell|cmd)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')`))
		}
		for _, re := range res {
			for _, m := range re.FindAllStringSubmatch(content, 4) {
				for _, lit := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'[^']*'`).FindAllString(m[1], 8) {
					if lit[0] == '\'' {
						out = append(out, lit[1:len(lit)-1])
					} else if v, err := strconv.Unquote(lit); err == nil {
						out = append(out, v)
					}
				}
			}
		}
	}
	return nil2empty(out)
}

// taskTargets are the targets named on a task runner's command line: its
// words that are neither options (nor their values, for the options in
// valued) nor VAR=value assignments.
func taskTargets(args []string, valued ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case slices.Contains(valued, a):
			i++
		case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// runTaskFile runs the recipes a task runner takes from the first of
// files the session wrote or edited.
func (w *walker) runTaskFile(files []string, label string, c ctx, recipes func(content string) []string, lang ...string) {
	for _, n := range files {
		key, f := w.st.LookupFile(n)
		if f == nil || f.Downloaded {
			continue
		}
		cc := c.with(label)
		cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
		for _, r := range recipes(f.Content) {
			if len(lang) > 0 {
				// The recipe is interpreter code, not a shell line.
				for _, it := range w.st.extractMemo(lang[0], r) {
					w.codeItem(it, cc)
				}
				continue
			}
			w.sub(r, cc, nil)
		}
		return
	}
}

func nil2empty(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// pyFuncBody returns the body of "def name(...):" in Python source: the
// lines after it that are indented deeper.
func pyFuncBody(src, name string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "def "+name+"(") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		var b strings.Builder
		for _, m := range lines[i+1:] {
			if strings.TrimSpace(m) != "" && len(m)-len(strings.TrimLeft(m, " \t")) <= indent {
				break
			}
			b.WriteString(m + "\n")
		}
		return b.String()
	}
	return ""
}

// taskfileCmds returns the shell commands of the named tasks of a go-task
// Taskfile (cmds: as strings or {cmd: ...} entries).
func taskfileCmds(content string, names []string) []string {
	var doc struct {
		Tasks map[string]any `yaml:"tasks"`
		Vars  map[string]any `yaml:"vars"`
	}
	if yaml.Unmarshal([]byte(content), &doc) != nil {
		return nil
	}
	var out []string
	// Dynamic variables (vars: V: {sh: CMD}) run their command whenever
	// a task runs.
	for _, k := range slices.Sorted(maps.Keys(doc.Vars)) {
		if m, ok := doc.Vars[k].(map[string]any); ok {
			if sh, ok := m["sh"].(string); ok {
				out = append(out, sh)
			}
		}
	}
	if doc.Tasks == nil {
		// An edit's fragment ("  clean:\n    cmds: [...]") is the tasks
		// map itself, indented.
		var frag map[string]any
		if yaml.Unmarshal([]byte(dedent(content)), &frag) == nil {
			doc.Tasks = frag
		}
	}
	for _, n := range names {
		var cmds []any
		switch t := doc.Tasks[n].(type) {
		case []any: // "setup: [cmd, cmd]"
			cmds = t
		case map[string]any:
			cmds, _ = t["cmds"].([]any)
		}
		for _, c := range cmds {
			switch x := c.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				if s, ok := x["cmd"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// scriptPairRe is one "name": "command" pair of a package.json.
var scriptPairRe = refilter.MustCompile(`"([A-Za-z0-9_:.-]+)"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// packageScripts returns a package.json's scripts. An edit recorded in
// the session may be a fragment ("\"test\": \"curl ... | sh\"") rather
// than a whole document: its "name": "command" pairs are read instead.
func packageScripts(content string) map[string]string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(content), &pkg) == nil {
		return pkg.Scripts
	}
	out := map[string]string{}
	for _, m := range scriptPairRe.FindAllStringSubmatch(content, -1) {
		var v string
		if json.Unmarshal([]byte(`"`+m[2]+`"`), &v) == nil {
			out[m[1]] = v
		}
	}
	return out
}

// justFuncRe is one of just's {{...}} interpolations of the
// environment or the home directory.
var justFuncRe = refilter.MustCompile(`\{\{\s*(?:env_var|env|env_var_or_default)\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"][^)]*\)\s*\}\}|\{\{\s*(home_directory|home_dir|invocation_directory|justfile_directory)\(\)\s*\}\}`)

// justVarRe is a justfile variable: NAME := VALUE.
var justVarRe = refilter.MustCompile(`(?m)^([A-Za-z_][\w-]*)\s*:=\s*(.+?)\s*$`)

// justVars replaces {{NAME}} with the value of the justfile's variable
// NAME: a quoted string as written, a function call as justInterp reads
// it.
func justVars(content string) *strings.Replacer {
	var pairs []string
	for _, m := range justVarRe.FindAllStringSubmatch(content, 32) {
		v := m[2]
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		} else {
			v = justInterp("{{" + v + "}}")
		}
		pairs = append(pairs, "{{"+m[1]+"}}", v, "{{ "+m[1]+" }}", v)
	}
	return strings.NewReplacer(pairs...)
}

// justInterp writes just's environment and directory interpolations
// as the shell's: {{env_var('HOME')}} is $HOME.
func justInterp(l string) string {
	if !strings.Contains(l, "{{") {
		return l
	}
	return justFuncRe.ReplaceAllStringFunc(l, func(m string) string {
		g := justFuncRe.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			return "${" + g[1] + "}"
		case g[2] == "home_directory" || g[2] == "home_dir":
			return "$HOME"
		}
		return "."
	})
}

// justRecipeRe is a justfile recipe header: "name:", "name arg='x':",
// "@name: deps" (not an assignment, "name := value").
var justRecipeRe = refilter.MustCompile(`^@?([A-Za-z_][A-Za-z0-9_-]*)(?:\s+[^:=]*)?:(?:[^=]|$)`)

// justRecipes returns the lines of the named recipes of a justfile (the
// first recipe when none is named). Recipe bodies are the indented lines
// after a header; a leading "@" (do not echo) is dropped.
func justRecipes(content string, names []string) []string {
	body := map[string][]string{}
	deps := map[string][]string{}
	first, cur := "", ""
	for _, line := range strings.Split(content, "\n") {
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			if cur != "" {
				if l := strings.TrimPrefix(strings.TrimSpace(line), "@"); l != "" && !strings.HasPrefix(l, "#") {
					body[cur] = append(body[cur], l)
				}
			}
			continue
		}
		cur = ""
		if m := justRecipeRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "#") {
			cur = m[1]
			if _, after, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(after, "=") {
				deps[cur] = strings.Fields(after)
			}
			if first == "" {
				first = cur
			}
		}
	}
	if len(names) == 0 && first != "" {
		names = []string{first}
	}
	var out []string
	for _, n := range names {
		// Dependencies run first: "default: clean" runs clean.
		for _, d := range deps[n] {
			out = append(out, body[d]...)
		}
		out = append(out, body[n]...)
	}
	return out
}

// gitCommandKey reports whether a git setting's value is a command git
// runs through the shell.
func gitCommandKey(k string) bool {
	switch k = strings.ToLower(k); k {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass", "sequence.editor",
		"diff.external", "gpg.program", "credential.helper", "uploadpack.packobjectshook":
		return true
	}
	return strings.HasPrefix(k, "pager.") || strings.HasPrefix(k, "alias.") ||
		strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command") || strings.HasSuffix(k, ".clean") || strings.HasSuffix(k, ".smudge")
}

// gitSubmoduleCommand reports whether a setting makes "git submodule
// update" run a command: submodule.NAME.update set to "!CMD".
func gitSubmoduleCommand(k, v string) bool {
	k = strings.ToLower(k)
	return strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update") && strings.HasPrefix(v, "!")
}

// gitBranch follows the branch the session checked out, so that a bare
// "git push -f" after "git checkout main" (another call) is read as the
// force-push to main it is.
func (w *walker) gitBranch(name string, rest []string, c ctx) {
	var pos []string
	force := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-b" || a == "-B" || a == "-c" || a == "-C" || a == "--orphan":
			if (name == "checkout" || name == "switch") && i+1 < len(rest) {
				pos = append(pos, rest[i+1])
				i++
			}
		case a == "-f" || a == "--force" || strings.HasPrefix(a, "+"):
			force = true
		case a == "--":
			i = len(rest)
		case !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
		}
	}
	switch name {
	case "checkout", "switch":
		if len(pos) == 1 { // "git checkout BRANCH" (a file restore names "--" or more)
			w.st.GitBranch = pos[0]
		}
	case "push":
		b := w.st.GitBranch
		if len(pos) == 2 && (pos[1] == "HEAD" || pos[1] == "@") {
			pos = pos[:1] // "git push -f origin HEAD" pushes the checked-out branch
		}
		if force && len(pos) <= 1 && (b == "main" || b == "master") {
			remote := "origin"
			if len(pos) == 1 {
				remote = pos[0]
			}
			w.sub("git push --force "+remote+" "+b, c.with("git push on "+b), nil)
		}
	}
}

// gitmodulesExtRe is a .gitmodules url given as an ext:: command.
var gitmodulesExtRe = refilter.MustCompile(`(?m)^\s*url\s*=\s*ext::(.+)$`)

// gitExtCommand is the command line of an ext:: remote as shell text.
// git splits the remote on spaces into argv itself, with "% " a space
// inside an argument and "%%" a percent sign, so "sh -c curl% URL|sh"
// runs sh with the single argument "curl URL|sh".
func gitExtCommand(s string) string {
	var argv []string
	var b strings.Builder
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '%'):
			b.WriteByte(s[i+1])
			i++
		case s[i] == ' ':
			if b.Len() > 0 {
				argv = append(argv, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(s[i])
		}
	}
	if b.Len() > 0 {
		argv = append(argv, b.String())
	}
	return joinQuoted(argv)
}

// gitHooks are the client-side hooks each git subcommand runs.
var gitHooks = map[string][]string{
	"commit":      {"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"},
	"push":        {"pre-push"},
	"checkout":    {"post-checkout"},
	"switch":      {"post-checkout"},
	"merge":       {"pre-merge-commit", "post-merge"},
	"pull":        {"post-merge"},
	"rebase":      {"pre-rebase"},
	"am":          {"applypatch-msg", "pre-applypatch", "post-applypatch"},
	"cherry-pick": {"post-commit"},
}

// gitExtras follows what a git command runs besides itself: an alias
// defined earlier in the session ("git config alias.nuke '!rm -rf ~'",
// then "git nuke"; "git config alias.pf 'push --force'", then "git pf
// origin main"), and hooks written in the session that the subcommand
// triggers (a .git/hooks/pre-commit, then "git commit").
func (w *walker) gitExtras(args []string, c ctx) {
	// ext:: URLs (allowed with protocol.ext.allow=always) name a command
	// git runs to talk to the "remote": clone 'ext::sh -c curl% URL|sh'.
	for _, a := range args {
		if cmdText, ok := strings.CutPrefix(a, "ext::"); ok {
			w.sub(gitExtCommand(cmdText), c.with("git ext::"), nil)
		}
	}
	if slices.Contains(args, "submodule") && (slices.Contains(args, "update") || slices.Contains(args, "init")) {
		if key, f := w.st.LookupFile(".gitmodules"); f != nil && !f.Downloaded {
			cc := c.with("git submodule (.gitmodules)")
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			for _, m := range gitmodulesExtRe.FindAllStringSubmatch(f.Content, 8) {
				w.sub(gitExtCommand(m[1]), cc, nil)
			}
		}
	}
	i := 0
	var inline map[string]string // git -c alias.NAME=VALUE, for this command
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if a := args[i]; a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" {
			if a == "-c" && i+1 < len(args) {
				k, v, ok := strings.Cut(args[i+1], "=")
				switch {
				case ok && strings.HasPrefix(strings.ToLower(k), "alias.") && !strings.HasPrefix(v, "!"):
					// git -c alias.ship='push --force origin main' ship: a
					// git subcommand under another name.
					if inline == nil {
						inline = map[string]string{}
					}
					inline[k[len("alias."):]] = v
				case ok && gitCommandKey(k):
					// git -c core.pager='CMD' log: settings whose value git
					// runs as a shell command.
					w.sub(strings.TrimPrefix(v, "!"), c.with("git -c "+k), nil)
				}
			}
			i++ // the option's value
		}
		i++
	}
	if i >= len(args) {
		return
	}
	name, rest := args[i], args[i+1:]
	if name == "config" {
		var pos []string
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				pos = append(pos, a)
			}
		}
		if len(pos) >= 2 && strings.HasPrefix(pos[0], "alias.") {
			k := strings.TrimPrefix(pos[0], "alias.")
			w.st.GitAliases[k] = strings.Join(pos[1:], " ")
			w.st.origin["gitalias:"+k] = w.st.gen
		} else if len(pos) >= 2 && (gitCommandKey(pos[0]) || gitSubmoduleCommand(pos[0], pos[1])) {
			// git config --global core.pager 'CMD': every later git
			// command that pages runs CMD.
			w.sub(strings.TrimPrefix(strings.Join(pos[1:], " "), "!"), c.with("git config "+pos[0]), nil)
		}
		return
	}
	switch name {
	case "push":
		w.runCI("git push", c)
	case "rebase":
		// git rebase --exec CMD: CMD runs after every replayed commit.
		for _, x := range optValues(rest, "--exec", "-x") {
			w.sub(x, c.with("git rebase --exec"), nil)
		}
	case "bisect":
		// git bisect run CMD ARGS: CMD runs at every step.
		if len(rest) > 1 && rest[0] == "run" {
			w.sub(joinQuoted(rest[1:]), c.with("git bisect run"), nil)
		}
	}
	if v, ok := inline[name]; ok && !contains(c.via, "git-alias:"+name) {
		w.sub("git "+v+" "+joinQuoted(rest), c.with("git-alias:"+name), nil)
		return
	}
	if v, ok := w.st.GitAliases[name]; ok && !contains(c.via, "git-alias:"+name) {
		cc := c.with("git-alias:" + name)
		cc.crossCall = cc.crossCall || w.st.earlier("gitalias:"+name)
		if strings.HasPrefix(v, "!") {
			w.sub(strings.TrimSpace(v[1:]+" "+joinQuoted(rest)), cc, nil)
		} else {
			w.sub("git "+v+" "+joinQuoted(rest), cc, nil)
		}
		return
	}
	if name == "submodule" {
		// git submodule foreach [--recursive] CMD: CMD runs in every
		// submodule, each a repository of its own.
		for j, a := range rest {
			if a == "foreach" {
				k := j + 1
				for k < len(rest) && strings.HasPrefix(rest[k], "--") {
					k++
				}
				if k < len(rest) {
					w.sub(strings.Join(rest[k:], " "), c.with("git submodule foreach"), nil)
				}
				return
			}
		}
	}
	w.gitBranch(name, rest, c)
	noVerify := false
	for _, a := range rest {
		if a == "--no-verify" || (name == "commit" && a == "-n") {
			noVerify = true
		}
	}
	for _, h := range gitHooks[name] {
		if noVerify && (h == "pre-commit" || h == "commit-msg" || h == "pre-push" || h == "pre-merge-commit") {
			continue
		}
		key, f := w.st.LookupFile(".git/hooks/" + h)
		if f == nil {
			// A hooks directory set by core.hooksPath (.githooks, .husky).
			for _, dir := range []string{".githooks/", ".husky/"} {
				if key, f = w.st.LookupFile(dir + h); f != nil {
					break
				}
			}
		}
		if f == nil {
			// Hook managers' configurations (lefthook.yml, installed by
			// "lefthook install"): the commands listed under the hook.
			for _, cfg := range []string{"lefthook.yml", "lefthook.yaml", ".lefthook.yml"} {
				if k, lf := w.st.LookupFile(cfg); lf != nil && !lf.Downloaded {
					if cmds := yamlSection(lf.Content, h); len(cmds) > 0 {
						cc := c.with("git hook " + h + " (" + cfg + ")")
						cc.crossCall = cc.crossCall || w.st.earlier("file:"+k)
						for _, cmd := range cmds {
							w.sub(cmd, cc, nil)
						}
					}
					break
				}
			}
			continue
		}
		if f.Downloaded {
			continue
		}
		cc := c.with("git hook " + h)
		cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
		w.sub(f.Content, cc, nil)
	}
}

// yamlSection returns the command lines (run:, script: and the like) of
// a top-level YAML section.
func yamlSection(content, key string) []string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(content, "\n") {
		if line != "" && line[0] != ' ' && line[0] != '\t' && line[0] != '#' {
			in = strings.HasPrefix(line, key+":")
			continue
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return yamlScriptLines(b.String())
}

// conanRecipe is the conanfile.py a conan command runs ("create PATH",
// "build .", "install x/conanfile.py"), or "".
func conanRecipe(args []string) string {
	if len(args) == 0 {
		return ""
	}
	switch args[0] {
	case "create", "build", "install", "source", "export", "export-pkg", "test":
	default:
		return ""
	}
	dir := "."
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(args) && conanValued[a] {
				i++
			}
			continue
		}
		dir = a
		break
	}
	if strings.HasSuffix(dir, ".py") {
		return dir
	}
	return path.Join(dir, "conanfile.py")
}

// conanValued are conan options that take a separate value.
var conanValued = map[string]bool{"-r": true, "--remote": true, "-pr": true, "--profile": true, "-s": true, "--settings": true,
	"-o": true, "--options": true, "-b": true, "--build": true, "--name": true, "--version": true, "--user": true, "--channel": true,
	"-of": true, "--output-folder": true, "-c": true, "--conf": true, "-f": true, "--format": true, "-tf": true, "--test-folder": true}

// buildTrigger is a project file a tool runs: its content is code in
// lang, or ("lines") a configuration whose values are command lines.
type buildTrigger struct {
	file string // a name, or a directory prefix ending in "/"
	lang string
	sub  string // the tool only runs it for this subcommand ("" any)
}

var buildTriggers = map[string][]buildTrigger{
	"rake":    {{file: "Rakefile", lang: "ruby"}},
	"bundle":  {{file: "Gemfile", lang: "ruby", sub: "install"}},
	"pytest":  {{file: "conftest.py", lang: "python"}},
	"py.test": {{file: "conftest.py", lang: "python"}},
	"nox":     {{file: "noxfile.py", lang: "python"}},
	"tox":     {{file: "tox.ini", lang: "lines"}},
	"cargo":   {{file: "build.rs", lang: "rust"}},
	// (A toolchain or module file the session wrote is read by the
	// configure step too: presets and -D options name it.)
	"cmake":      {{file: "CMakeLists.txt", lang: "lines"}, {file: ".cmake", lang: "lines"}},
	"pre-commit": {{file: ".pre-commit-config.yaml", lang: "lines"}},
	"mvn":        {{file: "pom.xml", lang: "lines"}},
	"composer":   {{file: "composer.json", lang: "lines"}},
	"gradle":     {{file: "build.gradle", lang: "java"}, {file: "build.gradle.kts", lang: "java"}},
	"gradlew":    {{file: "build.gradle", lang: "java"}, {file: "build.gradle.kts", lang: "java"}},
	"poe":        {{file: "pyproject.toml", lang: "lines"}},
	// Tilt runs its Tiltfile's local() commands; supervisord its
	// programs' command lines.
	"tilt":        {{file: "Tiltfile", lang: "tiltfile"}},
	"supervisord": {{file: "supervisord.conf", lang: "lines"}, {file: "/etc/supervisor/supervisord.conf", lang: "lines"}},
	"fastlane":    {{file: "fastlane/Fastfile", lang: "ruby"}, {file: "Fastfile", lang: "ruby"}},
}

// configTriggers are more tools that run a project or user file the
// session wrote; unlike buildTriggers they are followed besides their
// own handling (docker, ssh and terraform have much else), from runs.
var configTriggers = map[string][]buildTrigger{
	// JavaScript tools load their configuration as code.
	"vite":    {{file: "vite.config.js", lang: "node"}, {file: "vite.config.ts", lang: "node"}, {file: "vite.config.mjs", lang: "node"}},
	"vitest":  {{file: "vitest.config.ts", lang: "node"}, {file: "vitest.config.js", lang: "node"}, {file: "vite.config.ts", lang: "node"}, {file: "vite.config.js", lang: "node"}},
	"jest":    {{file: "jest.config.js", lang: "node"}, {file: "jest.config.ts", lang: "node"}, {file: "jest.setup.js", lang: "node"}},
	"webpack": {{file: "webpack.config.js", lang: "node"}},
	"next":    {{file: "next.config.js", lang: "node"}, {file: "next.config.mjs", lang: "node"}},
	"nodemon": {{file: "nodemon.json", lang: "json"}},
	// CI pipelines run locally, dev containers, process managers,
	// Terraform's local-exec provisioners, VS Code's folder-open tasks.
	"gitlab-ci-local":  {{file: ".gitlab-ci.yml", lang: "yaml"}},
	"gitlab-runner":    {{file: ".gitlab-ci.yml", lang: "yaml", sub: "exec"}},
	"ctest":            {{file: "CMakeLists.txt", lang: "lines"}},
	"vagrant":          {{file: "Vagrantfile", lang: "lines", sub: "up"}, {file: "Vagrantfile", lang: "lines", sub: "provision"}},
	"ansible-playbook": {{file: ".yml", lang: "ansible"}, {file: ".yaml", lang: "ansible"}},
	"devcontainer":     {{file: ".devcontainer/devcontainer.json", lang: "json", sub: "up"}},
	"hatch":            {{file: "hatch_build.py", lang: "python", sub: "build"}},
	"honcho":           {{file: "Procfile", lang: "procfile"}},
	"foreman":          {{file: "Procfile", lang: "procfile"}},
	"overmind":         {{file: "Procfile", lang: "procfile"}},
	"hivemind":         {{file: "Procfile", lang: "procfile"}},
	"terraform":        {{file: ".tf", lang: "terraform", sub: "apply"}, {file: ".tf", lang: "terraform", sub: "plan"}},
	"tofu":             {{file: ".tf", lang: "terraform", sub: "apply"}, {file: ".tf", lang: "terraform", sub: "plan"}},
	"code":             {{file: ".vscode/tasks.json", lang: "vscode"}},
	"cursor":           {{file: ".vscode/tasks.json", lang: "vscode"}},
	"docker":           {{file: "Dockerfile", lang: "dockerfile", sub: "build"}},
	"podman":           {{file: "Dockerfile", lang: "dockerfile", sub: "build"}},
	"ssh":              {{file: "~/.ssh/config", lang: "sshconfig"}},
	// latexmk runs its rc file as Perl; TeX engines started with
	// -shell-escape run what \write18{...} in the document asks for.
	"latexmk": {{file: ".latexmkrc", lang: "perl"}, {file: "latexmkrc", lang: "perl"}},
	// Salt's state files: what cmd.run runs, what file.absent removes.
	"salt":      saltTriggers,
	"salt-call": saltTriggers,
	"salt-ssh":  saltTriggers,
	"pdflatex":  texTriggers,
	"xelatex":   texTriggers,
	"lualatex":  texTriggers,
	"latex":     texTriggers,
}

var saltTriggers = []buildTrigger{{file: ".sls", lang: "sls", sub: "state.apply"}, {file: ".sls", lang: "sls", sub: "state.sls"}, {file: ".sls", lang: "sls", sub: "state.highstate"}}

var texTriggers = []buildTrigger{{file: ".tex", lang: "tex", sub: "-shell-escape"}, {file: ".tex", lang: "tex", sub: "--shell-escape"}}

// texShellRe is a TeX document's call out to the shell.
var texShellRe = refilter.MustCompile(`\\(?:immediate\\)?(?:write18|ShellEscape)\s*\{([^{}]*)\}`)

// runTriggers follows a tool into the trigger files it runs that the
// session wrote.
func (w *walker) runTriggers(trig []buildTrigger, cmd *Command, c ctx) {
	for _, tf := range trig {
		if tf.sub != "" && !slices.Contains(cmd.Args, tf.sub) {
			continue
		}
		mode := tf.lang
		if mode == "terraform" {
			w.terraformRun(tf.sub, c, cmd.Args)
			continue
		}
		files := w.matchingFiles(tf.file)
		if mode == "ansible" {
			if named := w.playbooks(cmd.Args); len(named) > 0 {
				// ansible-playbook site.yml: that playbook (and its
				// roles' tasks), not whichever YAML file sorts first.
				for _, content := range named {
					for _, l := range triggerCommands(mode, content) {
						w.sub(l, c.with(cmd.Name+" (playbook)"), nil)
					}
				}
				continue
			}
		}
		w.runTaskFile(files, cmd.Name+" ("+tf.file+")", c, func(content string) []string {
			return triggerCommands(mode, content)
		}, langArg(mode)...)
	}
}

func init() {
	for _, n := range []string{"gradle", "gradlew"} {
		buildTriggers[n] = append(buildTriggers[n], buildTrigger{file: "settings.gradle", lang: "java"}, buildTrigger{file: "settings.gradle.kts", lang: "java"})
	}
}

// triggerCommands returns what a trigger file of the given mode runs:
// command lines for the configuration modes, the whole content as code
// otherwise.
func triggerCommands(mode, content string) []string {
	switch mode {
	case "lines":
		return configCommands(content)
	case "yaml":
		return yamlScriptLines(content)
	case "procfile":
		return procfileCommands(content)
	case "vscode":
		// Only tasks set to run when the folder opens run by themselves.
		if !strings.Contains(content, "folderOpen") {
			return nil
		}
		return jsonCommands(content)
	case "json":
		return jsonCommands(content)
	case "dockerfile":
		return dockerRunLines(content)
	case "sshconfig":
		return sshConfigCommands(content)
	case "sls":
		return slsCommands(content)
	case "tex":
		return groupMatches(texShellRe, content, 1)
	case "ansible":
		return ansibleCommands(content)
	case "tiltfile":
		return groupMatches(tiltCmdRe, content, 2)
	}
	return []string{content}
}

// groupMatches returns one capture group of each of re's first 16
// matches in content.
func groupMatches(re *refilter.Regexp, content string, group int) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(content, 16) {
		out = append(out, m[group])
	}
	return out
}

// tiltCmdRe: a Tiltfile's local('CMD') and local_resource(cmd='CMD',
// serve_cmd='CMD'); group 2 is the command.
var tiltCmdRe = refilter.MustCompile(`(?:\blocal\(\s*|\b(?:cmd|serve_cmd)\s*=\s*)(['"])((?:[^'"\\\n]|\\.)*)['"]`)

// yamlScriptKeyRe opens a YAML list or block of commands (GitLab CI's
// script, before_script and after_script; run: | blocks).
var yamlScriptKeyRe = refilter.MustCompile(`^(\s*)(?:-\s+)?(?:before_script|after_script|script|run|commands|cmds)\s*:\s*(\|[-+]?|>[-+]?)?\s*$`)

// yamlScriptLines returns the commands listed under script keys.
func yamlScriptLines(content string) []string {
	var out []string
	indent := -1
	for _, line := range strings.Split(content, "\n") {
		if m := yamlScriptKeyRe.FindStringSubmatch(line); m != nil {
			indent = len(m[1])
			continue
		}
		t := strings.TrimSpace(line)
		if indent < 0 || t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(line)-len(strings.TrimLeft(line, " \t")) <= indent {
			indent = -1
			continue
		}
		t = strings.TrimPrefix(t, "- ")
		if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
			t = t[1 : len(t)-1]
		}
		out = append(out, t)
	}
	return append(out, configCommands(content)...)
}

// jsonCommandKeys name the JSON fields that hold commands: VS Code
// tasks, dev containers' lifecycle hooks, nodemon's exec and events.
var jsonCommandKeys = map[string]bool{"command": true, "initializeCommand": true, "onCreateCommand": true, "updateContentCommand": true,
	"postCreateCommand": true, "postStartCommand": true, "postAttachCommand": true, "exec": true, "events": true}

// jsonCommands returns the commands a JSON configuration holds under
// jsonCommandKeys: a string, an argv array, or an object of them. A
// task's "args" follow its command.
func jsonCommands(content string) []string {
	var doc any
	if json.Unmarshal([]byte(content), &doc) != nil {
		return configCommands(content)
	}
	var out []string
	var value func(v any)
	value = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			var argv []string
			for _, e := range x {
				if s, ok := e.(string); ok {
					argv = append(argv, s)
				}
			}
			if len(argv) > 0 {
				out = append(out, strings.Join(quoteAll(argv), " "))
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				value(x[k])
			}
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if !jsonCommandKeys[k] {
					walk(x[k])
					continue
				}
				n := len(out)
				value(x[k])
				if args, ok := x["args"].([]any); ok && k == "command" && len(out) > n {
					for _, a := range args {
						if s, ok := a.(string); ok {
							out[len(out)-1] += " " + quote(s)
						}
					}
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	return out
}

// ansibleFileRe is an Ansible file task removing a path (file: path=X
// state=absent, in either YAML form).
var ansibleFileRe = refilter.MustCompile(`(?s)\bfile:\s*(?:\n\s+)?(?:path|dest|name)[:=]\s*['"]?([^'"\s]+)['"]?\s*(?:\n\s+)?state[:=]\s*absent|\bfile:\s*(?:\n\s+)?state[:=]\s*absent\s*(?:\n\s+)?(?:path|dest|name)[:=]\s*['"]?([^'"\s]+)`)

// ansibleCommands returns what a playbook runs: its shell, command and
// raw tasks' lines, and its file removals as rm -rf.
func ansibleCommands(content string) []string {
	if !strings.Contains(content, "hosts:") && !strings.Contains(content, "tasks:") {
		return nil
	}
	out := append(configCommands(content), playbookModuleCommands(content)...)
	for _, m := range ansibleFileRe.FindAllStringSubmatch(content, 8) {
		p := m[1] + m[2]
		p = strings.NewReplacer("{{ ansible_env.HOME }}", "~", "{{ansible_env.HOME}}", "~", "{{ lookup('env', 'HOME') }}", "~").Replace(p)
		out = append(out, "rm -rf "+quote(p))
	}
	return out
}

// slsCommands returns what a Salt state file does that the shell reading
// knows: cmd.run's command lines ("- name: CMD") and file.absent's paths
// (as rm -rf PATH).
func slsCommands(content string) []string {
	var out []string
	state := ""
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasSuffix(t, ":") && strings.Contains(t, "."):
			state = strings.TrimSuffix(t, ":")
		case strings.HasPrefix(t, "- name:"):
			v := strings.Trim(strings.TrimSpace(strings.TrimPrefix(t, "- name:")), `'"`)
			switch state {
			case "cmd.run", "cmd.script", "cmd.wait":
				out = append(out, v)
			case "file.absent":
				out = append(out, "rm -rf "+quote(v))
			}
		}
	}
	return out
}

// puppetExecRe is a Puppet exec resource's command (command => '...').
var puppetExecRe = refilter.MustCompile(`\bcommand\s*=>\s*(?:'([^']*)'|"([^"]*)")`)

// puppetCommands returns the commands Puppet code's exec resources run.
func puppetCommands(content string) []string {
	var out []string
	for _, m := range puppetExecRe.FindAllStringSubmatch(content, 16) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// procfileCommands returns a Procfile's commands ("web: gunicorn app").
func procfileCommands(content string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		if name, cmd, ok := strings.Cut(line, ":"); ok && validName(strings.TrimSpace(strings.ReplaceAll(name, "-", "_"))) && strings.TrimSpace(cmd) != "" {
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	return out
}

// dockerRunLines returns the RUN commands of a Dockerfile that handle a
// secret the build is given: a build secret (/run/secrets/...) or a
// file copied in from the context that is one (COPY .env .). Those
// reads are written as reads of the original, so sending one out of the
// build is read as sending the secret. The other RUN lines act inside
// the image being built (curl ... | bash there installs into it), not on
// this machine, and are not returned.
func dockerRunLines(content string) []string {
	var out []string
	workdir := "/"
	copied := map[string]string{} // path in the image -> context path
	joined := strings.ReplaceAll(content, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		t := strings.TrimSpace(line)
		verb, rest, _ := strings.Cut(t, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(verb) {
		case "WORKDIR":
			workdir = path.Join(workdir, rest)
		case "COPY", "ADD":
			f := strings.Fields(rest)
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				f = f[1:]
			}
			if len(f) < 2 {
				continue
			}
			dst := f[len(f)-1]
			if !strings.HasPrefix(dst, "/") {
				dst = path.Join(workdir, dst)
			}
			for _, src := range f[:len(f)-1] {
				if !dockerSecretSrcRe.MatchString(src) {
					continue
				}
				if len(f) == 2 && !strings.HasSuffix(f[1], "/") && f[1] != "." {
					copied[dst] = src
				} else {
					copied[path.Join(dst, path.Base(src))] = src
				}
			}
		case "RUN":
			for strings.HasPrefix(rest, "--") {
				_, r, _ := strings.Cut(rest, " ")
				rest = strings.TrimSpace(r)
			}
			if strings.HasPrefix(rest, "[") {
				// RUN ["sh", "-c", "..."]: the exec form.
				var argv []string
				if json.Unmarshal([]byte(rest), &argv) == nil && len(argv) > 0 {
					rest = strings.Join(quoteAll(argv), " ")
				}
			}
			hit := strings.Contains(rest, "/run/secrets/")
			for dst, src := range copied {
				if strings.Contains(rest, dst) {
					rest = strings.ReplaceAll(rest, dst, src)
					hit = true
				}
			}
			if hit {
				out = append(out, rest)
			}
		}
	}
	return out
}

// dockerSecretSrcRe is a build-context path that holds secrets.
var dockerSecretSrcRe = refilter.MustCompile(`(^|/)(\.env(\.[a-z]+)?|\.aws|\.ssh|\.kube|\.npmrc|\.netrc|\.pgpass|\.git-credentials|\.docker|credentials(\.json)?|id_[a-z0-9]+)/?$`)

// sshConfigCommands returns the commands an ssh_config runs on the
// local machine: ProxyCommand, LocalCommand, Match exec.
func sshConfigCommands(content string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		k, v, _ := strings.Cut(t, " ")
		switch strings.ToLower(k) {
		case "proxycommand", "localcommand":
			out = append(out, strings.NewReplacer("%h", "host", "%p", "22", "%r", "user").Replace(strings.TrimSpace(v)))
		case "match":
			if _, cmd, ok := strings.Cut(v, "exec "); ok {
				out = append(out, strings.Trim(strings.TrimSpace(cmd), `"`))
			}
		}
	}
	return out
}

// makeIncludes puts the content of the files a Makefile includes, when
// the session wrote them, in place of the include lines.
func (w *walker) makeIncludes(content string) string {
	if !strings.Contains(content, "include ") {
		return content
	}
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		rest, ok := strings.CutPrefix(t, "include ")
		if !ok {
			rest, ok = strings.CutPrefix(t, "-include ")
		}
		if !ok {
			continue
		}
		var parts []string
		for _, f := range strings.Fields(rest) {
			if _, file := w.st.LookupFile(f); file != nil && !file.Downloaded {
				parts = append(parts, file.Content)
			}
		}
		if len(parts) > 0 {
			lines[i] = strings.Join(parts, "\n")
		}
	}
	return strings.Join(lines, "\n")
}

func langArg(mode string) []string {
	switch mode {
	case "lines", "yaml", "procfile", "vscode", "json", "dockerfile", "sshconfig", "ansible", "tiltfile", "tex", "sls":
		return nil
	}
	return []string{mode}
}

// matchingFiles lists the session's files for a trigger: the name itself
// (found anywhere, as LookupFile does), or every file below a directory
// prefix ("x/"), or ending in a suffix (".go").
func (w *walker) matchingFiles(spec string) []string {
	if !strings.HasSuffix(spec, "/") && !strings.HasPrefix(spec, ".") || spec == ".pre-commit-config.yaml" {
		return []string{spec}
	}
	var out []string
	for k, f := range w.st.Files {
		if f.Downloaded {
			continue
		}
		if strings.HasSuffix(spec, "/") && strings.Contains("/"+k, "/"+spec) || strings.HasPrefix(spec, ".") && strings.HasSuffix(k, spec) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// configKeyRe strips what introduces a command in the configuration
// files build tools run from: YAML keys and list dashes (run:, entry:,
// command:, cmd:, script:), INI keys (commands_pre =), go:generate,
// CMake's COMMAND, XML tags, JSON "name": "value" pairs.
var configKeyRe = refilter.MustCompile(`^\s*(?:-\s+)?(?:(?:run|entry|command|cmd|script|commands(?:_pre|_post)?|test|shell|raw|sh)\s*[:=]\s*(?:\{\s*shell\s*=\s*)?|.*\binline:\s*|//go:generate\s+|.*\bCOMMAND\s+|"[^"]+"\s*:\s*\[?\s*|<argument>|<executable>)`)

var (
	cmakeReadRe = refilter.MustCompile(`(?i)\bfile\s*\(\s*(?:READ|STRINGS)\s+"?([^"\s)]+)`)
	// cmakeRemoveRe: file(REMOVE_RECURSE PATH...) and file(REMOVE ...).
	cmakeRemoveRe = refilter.MustCompile(`\bfile\s*\(\s*REMOVE(?:_RECURSE)?\s+([^)]+)\)`)
	antDeleteRe   = refilter.MustCompile(`<delete\s+(?:dir|file)\s*=\s*"([^"]+)"`)
	antExecRe     = refilter.MustCompile(`(?s)<exec\s+executable\s*=\s*"([^"]+)"[^>]*>(.*?)</exec>`)
	antArgRe      = refilter.MustCompile(`<arg\s+(?:value|line)\s*=\s*"([^"]*)"`)
	antProps      = strings.NewReplacer("${user.home}", "~", "${env.HOME}", "~", "${basedir}", ".", "${project.basedir}", ".")
)

// cmakeEnvRe is CMake's environment reference, $ENV{NAME}.
var cmakeEnvRe = refilter.MustCompile(`\$ENV\{(\w+)\}`)

// toxSubst reads tox's substitutions: the user's home, the project's
// directory and environment variables ({env:NAME}, {env:NAME:default}).
var toxSubst = strings.NewReplacer("{homedir}", "~", "{env:HOME}", "~", "{toxinidir}", ".", "{env:USERPROFILE}", "~",
	// Terraform's own directories: the module's, the root module's, the
	// working directory.
	"${path.module}", ".", "${path.root}", ".", "${path.cwd}", ".",
	// CMake's source and build trees.
	"${CMAKE_SOURCE_DIR}", ".", "${CMAKE_CURRENT_SOURCE_DIR}", ".", "${PROJECT_SOURCE_DIR}", ".",
	"${CMAKE_BINARY_DIR}", "build", "${CMAKE_CURRENT_BINARY_DIR}", "build", "${PROJECT_BINARY_DIR}", "build")

// configCommands returns the command lines of a build tool's
// configuration: the values after the keys configKeyRe knows, quotes and
// closing brackets trimmed. Comments are skipped.
func configCommands(content string) []string {
	var out []string
	var args []string // Maven's <argument> list, joined at the end
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		loc := configKeyRe.FindStringIndex(line)
		if loc == nil {
			continue
		}
		v := strings.TrimSpace(line[loc[1]:])
		if i := strings.Index(v, "</"); i >= 0 {
			v = v[:i]
		}
		v = toxSubst.Replace(v)
		v = cmakeEnvRe.ReplaceAllString(v, "$${$1}") // CMake's $ENV{HOME}
		v = trimClosers(strings.TrimRight(v, ", "))
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		} else if strings.Count(v, `"`)%2 == 1 {
			v = strings.Trim(v, `"`)
		}
		v = strings.TrimPrefix(v, "@") // composer's @php script.php
		if v == "" {
			continue
		}
		if strings.Contains(line, "<argument>") || strings.Contains(line, "<executable>") {
			args = append(args, v)
			continue
		}
		out = append(out, strings.ReplaceAll(v, `\"`, `"`))
	}
	// CMake's file(READ PATH VAR) and file(STRINGS ...) read a file at
	// configure time.
	for _, m := range cmakeReadRe.FindAllStringSubmatch(content, 8) {
		// Double quotes: ${HOME} from $ENV{HOME} still expands.
		out = append(out, `cat "`+cmakeEnvRe.ReplaceAllString(m[1], "$${$1}")+`"`)
	}
	// CMake's file(REMOVE_RECURSE ...) deletes at configure time.
	for _, m := range cmakeRemoveRe.FindAllStringSubmatch(content, 8) {
		if ps := strings.Fields(cmakeEnvRe.ReplaceAllString(toxSubst.Replace(m[1]), "$${$1}")); len(ps) > 0 {
			out = append(out, `rm -rf "`+strings.Join(ps, `" "`)+`"`)
		}
	}
	// Ant (maven-antrun): <delete dir="..."/>, <exec executable="sh">
	// with its <arg value="..."/> words.
	for _, m := range antDeleteRe.FindAllStringSubmatch(content, 8) {
		out = append(out, "rm -rf "+quote(antProps.Replace(m[1])))
	}
	for _, m := range antExecRe.FindAllStringSubmatch(content, 8) {
		argv := []string{m[1]}
		for _, a := range antArgRe.FindAllStringSubmatch(m[2], 16) {
			argv = append(argv, antProps.Replace(a[1]))
		}
		out = append(out, strings.Join(quoteAll(argv), " "))
	}
	if len(args) == 0 {
		for _, m := range xmlExecRe.FindAllStringSubmatch(content, 16) {
			args = append(args, m[2])
		}
	}
	if len(args) > 0 {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = quote(a)
		}
		out = append(out, strings.Join(q, " "))
	}
	return out
}

// trimClosers drops trailing brackets that close something opened before
// the value (a JSON array, a TOML inline table), keeping balanced ones.
func trimClosers(v string) string {
	for len(v) > 0 {
		c := v[len(v)-1]
		var open byte
		switch c {
		case ']':
			open = '['
		case '}':
			open = '{'
		case ')':
			open = '('
		default:
			return v
		}
		if strings.Count(v, string(open)) >= strings.Count(v, string(c)) {
			return v
		}
		v = strings.TrimRight(v[:len(v)-1], ", ")
	}
	return v
}

// dedent removes the indentation the first non-empty line has from
// every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	ind := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			ind = len(l) - len(strings.TrimLeft(l, " \t"))
			break
		}
	}
	if ind <= 0 {
		return s
	}
	for i, l := range lines {
		if len(l) >= ind && strings.TrimSpace(l[:ind]) == "" {
			lines[i] = l[ind:]
		}
	}
	return strings.Join(lines, "\n")
}

// xmlExecRe finds Maven exec-plugin executables and arguments, wherever
// they sit on their lines.
var xmlExecRe = refilter.MustCompile(`<(executable|argument)>([^<]*)</(?:executable|argument)>`)

// composeUp follows "docker compose up|run [SERVICE...]" into a compose
// file the session wrote: each service runs as the "docker run" with the
// same mounts, privileges and command would, so a service mounting the
// host's root or home and deleting or reading there is seen like that
// docker run.
func (w *walker) composeUp(prog string, args []string, c ctx) {
	if len(args) == 0 {
		return
	}
	sub := ""
	var services []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file" || a == "-p" || a == "--project-name" || a == "--profile" || a == "--env-file":
			i++
		case strings.HasPrefix(a, "-"):
		case sub == "":
			sub = a
		default:
			services = append(services, a)
		}
	}
	if sub != "up" && sub != "run" && sub != "start" && sub != "create" {
		return
	}
	if sub == "run" && len(services) > 1 {
		services = services[:1] // run SERVICE CMD...: the rest is the command
	}
	for _, key := range w.composeFiles() {
		f := w.st.Files[key]
		var doc struct {
			Services map[string]struct {
				Image      string `yaml:"image"`
				Volumes    []any  `yaml:"volumes"`
				Command    any    `yaml:"command"`
				Entrypoint any    `yaml:"entrypoint"`
				Privileged bool   `yaml:"privileged"`
				PID        string `yaml:"pid"`
			} `yaml:"services"`
		}
		if yaml.Unmarshal([]byte(f.Content), &doc) != nil {
			continue
		}
		names := make([]string, 0, len(doc.Services))
		for n := range doc.Services {
			if len(services) == 0 || slices.Contains(services, n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			svc := doc.Services[n]
			argv := []string{prog, "run"}
			if svc.Privileged {
				argv = append(argv, "--privileged")
			}
			if svc.PID == "host" {
				argv = append(argv, "--pid=host")
			}
			for _, v := range svc.Volumes {
				if s, ok := v.(string); ok {
					argv = append(argv, "-v", strings.NewReplacer("${HOME}", "~", "$HOME", "~").Replace(s))
				}
			}
			if s, ok := svc.Entrypoint.(string); ok && s != "" {
				argv = append(argv, "--entrypoint", s)
			}
			image := svc.Image
			if image == "" {
				image = "build-context"
			}
			argv = append(argv, image)
			switch cmd := svc.Command.(type) {
			case string:
				argv = append(argv, "sh", "-c", cmd)
			case []any:
				for _, x := range cmd {
					if s, ok := x.(string); ok {
						argv = append(argv, s)
					}
				}
			}
			cc := c.with(prog + " compose " + sub + " (" + key + ")")
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			w.emit(newRaw(argv), cc, stdinInfo{})
		}
	}
}

// composeFiles are the compose files the session wrote, by the names
// compose looks for.
func (w *walker) composeFiles() []string {
	var out []string
	for k, f := range w.st.Files {
		if f.Downloaded {
			continue
		}
		switch b := path.Base(k); {
		case strings.HasPrefix(b, "docker-compose") && (strings.HasSuffix(b, ".yml") || strings.HasSuffix(b, ".yaml")),
			strings.HasPrefix(b, "compose") && (strings.HasSuffix(b, ".yml") || strings.HasSuffix(b, ".yaml")):
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// unitExecLines returns the commands a systemd unit runs: its ExecStart,
// ExecStartPre/Post, ExecReload and ExecStop lines, without the prefixes
// that change how failures count (-, @, +, !).
func unitExecLines(content string) []string {
	var out []string
	for _, line := range strings.Split(content, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !strings.HasPrefix(k, "Exec") {
			continue
		}
		if v = strings.TrimLeft(strings.TrimSpace(v), "-@+!:"); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// pytestFiles lists the session's Python files pytest would collect for
// these arguments.
func (w *walker) pytestFiles(args []string) []string {
	var roots []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-k" || a == "-m" || a == "-c" || a == "-p" || a == "--rootdir" || a == "-o" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		a, _, _ = strings.Cut(a, "::") // tests/test_x.py::test_one
		roots = append(roots, CleanPath(a))
	}
	var out []string
	for key := range w.st.Files {
		if !strings.HasSuffix(key, ".py") {
			continue
		}
		base := path.Base(key)
		test := strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
		if len(roots) == 0 {
			if test {
				out = append(out, key)
			}
			continue
		}
		for _, r := range roots {
			if key == r || strings.HasSuffix(key, "/"+r) || test && (strings.HasPrefix(key, r+"/") || strings.Contains(key, "/"+r+"/")) {
				out = append(out, key)
				break
			}
		}
	}
	// The most recently written first, and a bounded number: a session
	// that wrote hundreds of test modules would otherwise have each one
	// rescanned on every test run. A dangerous module is caught on the
	// run that follows its writing.
	slices.SortFunc(out, func(a, b string) int {
		if ga, gb := w.st.origin["file:"+a], w.st.origin["file:"+b]; ga != gb {
			return gb - ga
		}
		return strings.Compare(a, b)
	})
	if len(out) > maxPytestModules {
		out = out[:maxPytestModules]
	}
	return out
}

// maxPytestModules bounds the test modules one pytest run is scanned for.
const maxPytestModules = 8

// udevRunRe: a udev rule's RUN key and its command.
var udevRunRe = refilter.MustCompile(`\bRUN\{?[a-z]*\}?\s*\+?=\s*"([^"]+)"`)

// bsdPeriodicRe is a FreeBSD periodic(8) script: run daily, weekly or
// monthly as root.
var bsdPeriodicRe = refilter.MustCompile(`^(?:/usr/local)?/etc/periodic/(?:daily|weekly|monthly|security)/[^/]+$`)

// ScheduledLines returns the commands a file written at p will run
// later without anyone typing them, and how: the jobs of a system
// crontab (/etc/cron.d, /etc/crontab, with their user field) or of a
// user's spooled one, scripts cron, init or periodic(8) run (/etc/cron.daily,
// /etc/rc.local, /etc/init.d) or pbuilder runs in every build, and
// udev rules' RUN commands. nil for any other file.
func ScheduledLines(p, content string) ([]string, string) {
	p = CleanPath(p)
	dir := path.Dir(p)
	switch {
	case p == "/etc/crontab" || dir == "/etc/cron.d":
		var out []string
		for _, line := range strings.Split(content, "\n") {
			// m h dom mon dow USER CMD: the user comes first.
			if cmd := cronCommand(line); cmd != "" {
				if _, rest, ok := strings.Cut(cmd, " "); ok {
					out = append(out, strings.TrimSpace(rest))
				}
			}
		}
		return out, "system crontab " + p
	case strings.HasPrefix(p, "/var/spool/cron/"):
		var out []string
		for _, line := range strings.Split(content, "\n") {
			if cmd := cronCommand(line); cmd != "" {
				out = append(out, cmd)
			}
		}
		return out, "crontab " + p
	case dir == "/etc/cron.hourly" || dir == "/etc/cron.daily" || dir == "/etc/cron.weekly" || dir == "/etc/cron.monthly" ||
		p == "/etc/rc.local" || dir == "/etc/init.d" || dir == "/etc/rc.d" || dir == "/etc/update-motd.d" ||
		// FreeBSD's periodic(8) runs every script of these directories.
		bsdPeriodicRe.MatchString(p):
		return []string{content}, "scheduled script " + p
	case sysvolScriptRe.MatchString(p):
		// A Group Policy logon or startup script in SYSVOL: every user
		// or machine the policy covers runs it.
		return []string{content}, "Group Policy script " + p
	case path.Base(p) == "Podfile":
		// CocoaPods evaluates the Podfile (Ruby) at every "pod install":
		// the commands its hooks shell out to run then.
		var out []string
		for _, m := range rubyShellRe.FindAllStringSubmatch(content, 16) {
			out = append(out, m[2]+m[3]+m[4])
		}
		return out, "Podfile " + p
	case strings.HasSuffix(p, ".pbxproj"):
		// An Xcode project's Run Script build phases run at every build.
		var out []string
		for _, m := range pbxShellScriptRe.FindAllStringSubmatch(content, 16) {
			out = append(out, unescape(m[1])) // C-style escapes
		}
		return out, "Xcode build phase " + p
	case strings.HasSuffix(dir, "/pbuilder/hooks") || strings.HasSuffix(dir, "/.pbuilder-hooks") || strings.HasSuffix(dir, "/pbuilder-hooks"):
		// pbuilder's hook directory: every script in it runs, as root,
		// in each later package build.
		return []string{content}, "pbuilder hook " + p
	case strings.HasSuffix(p, ".git/config") || path.Base(p) == ".gitconfig" || strings.HasSuffix(p, "/git/config"):
		// A git configuration's command settings (core.pager,
		// core.fsmonitor, core.sshCommand...) run at the next git
		// command, as "git config core.pager CMD" is read.
		return gitConfigCommands(content), "git config file " + p
	case (dir == "/etc/udev/rules.d" || dir == "/lib/udev/rules.d" || dir == "/usr/lib/udev/rules.d") && strings.HasSuffix(p, ".rules"):
		var out []string
		for _, m := range udevRunRe.FindAllStringSubmatch(content, 16) {
			out = append(out, m[1])
		}
		return out, "udev rule " + p
	}
	return nil, ""
}

// sysvolScriptRe is a script in a Group Policy object's Scripts folder.
var sysvolScriptRe = refilter.MustCompile(`(?i)[\\/]sysvol[\\/].*[\\/]scripts[\\/](logon|logoff|startup|shutdown)[\\/][^\\/]+$`)

// rubyShellRe is a Ruby call that runs a shell command given as a
// literal: system('...'), exec("..."), `...`, %x(...).
var rubyShellRe = refilter.MustCompile(`(?:\b(?:system|exec|spawn)\s*\(?\s*(['"])((?:[^'"\\]|\\.)*)['"]|` + "`([^`]+)`" + `|%x\(([^)]*)\))`)

// pbxShellScriptRe is a Run Script phase's script in a project.pbxproj.
var pbxShellScriptRe = refilter.MustCompile(`\bshellScript\s*=\s*"((?:[^"\\]|\\.)*)"`)

// ciFiles are where CI services read their pipelines from.
var ciFiles = []string{".github/workflows/", ".gitlab-ci.yml", ".gitlab-ci.yaml", ".circleci/config.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml", ".drone.yml", ".buildkite/pipeline.yml", ".woodpecker.yml"}

// runCI walks the steps of the CI pipelines the session wrote or edited,
// when something starts them (git push, gh workflow run, act): they run
// with the repository's secrets and deploy rights. A pipeline written
// and never started is a file, like a script never run. On a hosted
// runner (a fresh virtual machine per job) the machine's own files are
// scratch; HostedCILabel marks those steps for the rules.
func (w *walker) runCI(trigger string, c ctx) {
	if len(w.st.Files) == 0 {
		return
	}
	for _, spec := range ciFiles {
		for _, n := range w.matchingFiles(spec) {
			key, f := w.st.LookupFile(n)
			if f == nil || f.Downloaded || !ciWorkflowRe.MatchString(key) {
				continue
			}
			label := "CI workflow " + key
			if trigger != "act" && !selfHostedRe.MatchString(f.Content) {
				// act runs the jobs on this machine (in containers, or on
				// the host itself with -P label=-self-hosted).
				label = HostedCILabel + key
			}
			cc := c.with(trigger).with(label)
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			for _, l := range yamlScriptLines(f.Content) {
				w.sub(l, cc, nil)
			}
		}
	}
}

// HostedCILabel starts the Via label of a step of a CI pipeline that
// runs on hosted runners.
const HostedCILabel = "hosted CI workflow "

var (
	// ciWorkflowRe: the files CI services read their pipelines from.
	ciWorkflowRe = refilter.MustCompile(`(^|/)(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.circleci/config\.ya?ml|azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|\.drone\.ya?ml|\.buildkite/pipeline\.ya?ml|\.woodpecker\.ya?ml)$`)
	// selfHostedRe: a job on the organisation's own machines (GitHub's
	// self-hosted label, GitLab runner tags).
	selfHostedRe = refilter.MustCompile(`(?m)self-hosted|^\s*tags\s*:`)
)

// gitConfigCommands returns the values of a git configuration file's
// settings that are commands (gitCommandKey), aliases excepted: an alias
// runs only when it is typed.
func gitConfigCommands(content string) []string {
	var out []string
	section := ""
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "["):
			name, sub, _ := strings.Cut(strings.Trim(t, "[] "), " ")
			section = strings.ToLower(name)
			if sub = strings.Trim(sub, `"`); sub != "" {
				section += "." + sub
			}
		case t == "" || t[0] == '#' || t[0] == ';':
		default:
			k, v, ok := strings.Cut(t, "=")
			key := section + "." + strings.ToLower(strings.TrimSpace(k))
			if !ok || strings.HasPrefix(key, "alias.") || !gitCommandKey(key) {
				continue
			}
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if v = strings.TrimPrefix(v, "!"); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// scheduledWrite walks what a file just written will run later
// (ScheduledLines).
func (w *walker) scheduledWrite(p, content string, c ctx) {
	lines, label := ScheduledLines(p, content)
	for _, l := range lines {
		w.sub(l, c.with(label), nil)
	}
}

var (
	// tfLocalFileRe: a local_file data source and the file it reads.
	tfLocalFileRe = refilter.MustCompile(`data\s+"local_(?:sensitive_)?file"\s+"[\w-]+"\s*\{[^}]*?\bfilename\s*=\s*(?:pathexpand\(\s*)?"([^"]+)"`)
	// tfExternalRe: an external data source and the program it runs.
	tfExternalRe = refilter.MustCompile(`data\s+"external"\s+"[\w-]+"\s*\{[^}]*?\bprogram\s*=\s*\[([^\]]*)\]`)
	// tfHTTPRe: an http data source and the URL it fetches.
	tfHTTPRe = refilter.MustCompile(`data\s+"http"\s+"[\w-]+"\s*\{[^}]*?\burl\s*=\s*"([^"]+)"`)
	// tfLocalExecRe opens a local-exec provisioner block.
	tfLocalExecRe = refilter.MustCompile(`provisioner\s+"local-exec"\s*\{`)
	tfCommandRe   = refilter.MustCompile(`(?m)^\s*command\s*=\s*"((?:[^"\\]|\\.)*)"`)
	tfInterpRe    = refilter.MustCompile(`(?m)^\s*interpreter\s*=\s*\[([^\]]*)\]`)
	// tfPathexpandRe: ${pathexpand("~/x")} in an interpolation.
	tfPathexpandRe = refilter.MustCompile(`\$\{pathexpand\("([^"]*)"\)\}`)
	// tfRemoteExecRe opens a remote-exec provisioner block.
	tfRemoteExecRe = refilter.MustCompile(`provisioner\s+"remote-exec"\s*\{`)
	tfInlineRe     = refilter.MustCompile(`(?s)\binline\s*=\s*\[(.*?)\]`)
	tfVarRe        = refilter.MustCompile(`\$\{var\.([A-Za-z_][\w-]*)\}`)
	tfDefaultRe    = refilter.MustCompile(`(?s)variable\s+"([\w-]+)"\s*\{[^}]*?\bdefault\s*=\s*"([^"]*)"`)
	tfAssignRe     = refilter.MustCompile(`(?m)^\s*([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"\s*$`)
)

// terraformRun walks what "terraform plan" or "apply" does with the
// session's .tf files, all of them as one configuration: data sources
// read a local file or fetch a URL at plan and apply (a local_file of
// ~/.ssh/id_rsa lands in the state and in outputs); apply also runs the
// local-exec provisioners, through their interpreter when one is set.
// ${var.X} takes the variable's default or its value in a .tfvars file
// the session wrote.
func (w *walker) terraformRun(sub string, c ctx, args []string) {
	files := w.matchingFiles(".tf")
	if len(files) == 0 {
		return
	}
	var b strings.Builder
	cc := c.with("terraform " + sub)
	for _, k := range files {
		b.WriteString(w.st.Files[k].Content + "\n")
		cc.crossCall = cc.crossCall || w.st.earlier("file:"+k)
	}
	content := b.String()
	vars := map[string]string{}
	for _, m := range tfDefaultRe.FindAllStringSubmatch(content, 32) {
		vars[m[1]] = m[2]
	}
	for _, spec := range []string{".tfvars", ".tfvars.json"} {
		for _, k := range w.matchingFiles(spec) {
			for _, m := range tfAssignRe.FindAllStringSubmatch(w.st.Files[k].Content, 32) {
				vars[m[1]] = m[2]
			}
		}
	}
	// -var NAME=VALUE on the command line wins.
	for _, v := range optValues(args, "-var", "--var") {
		if k, val, ok := strings.Cut(strings.Trim(v, `"'`), "="); ok {
			vars[k] = val
		}
	}
	content = tfPathexpandRe.ReplaceAllString(content, "$1")
	content = tfVarRe.ReplaceAllStringFunc(content, func(m string) string {
		if v, ok := vars[m[6:len(m)-1]]; ok {
			return v
		}
		return m
	})
	content = toxSubst.Replace(content)
	var cmds []string
	for _, m := range tfLocalFileRe.FindAllStringSubmatch(content, 8) {
		cmds = append(cmds, "cat "+quote(m[1]))
	}
	for _, m := range tfHTTPRe.FindAllStringSubmatch(content, 8) {
		cmds = append(cmds, "curl -s "+quote(m[1]))
	}
	for _, m := range tfExternalRe.FindAllStringSubmatch(content, 8) {
		if argv := hclStrings(m[1]); len(argv) > 0 {
			cmds = append(cmds, joinQuoted(argv))
		}
	}
	if sub == "apply" {
		for _, m := range tfLocalExecRe.FindAllStringIndex(content, 16) {
			end := closeIndex(content[m[1]:], 1, 4000)
			if end < 0 {
				continue
			}
			block := content[m[1] : m[1]+end]
			cm := tfCommandRe.FindStringSubmatch(block)
			if cm == nil {
				continue
			}
			command := hclUnescape.Replace(cm[1])
			if im := tfInterpRe.FindStringSubmatch(block); im != nil {
				cmds = append(cmds, joinQuoted(append(hclStrings(im[1]), command)))
			} else {
				cmds = append(cmds, command)
			}
		}
		// remote-exec runs its inline commands on the resource's host.
		for _, m := range tfRemoteExecRe.FindAllStringIndex(content, 8) {
			if end := closeIndex(content[m[1]:], 1, 4000); end > 0 {
				if im := tfInlineRe.FindStringSubmatch(content[m[1] : m[1]+end]); im != nil {
					cmds = append(cmds, hclStrings(im[1])...)
				}
			}
		}
	}
	for _, l := range cmds {
		w.sub(l, cc, nil)
	}
}

// playbooks returns the contents of the playbooks an ansible-playbook
// command names that the session wrote, each followed by its roles'
// tasks (roles/NAME/tasks/main.yml) as a play of their own.
func (w *walker) playbooks(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasSuffix(a, ".yml") && !strings.HasSuffix(a, ".yaml") {
			continue
		}
		_, f := w.st.LookupFile(a)
		if f == nil || f.Downloaded {
			continue
		}
		out = append(out, f.Content)
		for _, m := range playRolesRe.FindAllStringSubmatch(f.Content, 8) {
			for _, ext := range []string{".yml", ".yaml"} {
				if key, rf := w.st.LookupFile("roles/" + m[1] + "/tasks/main" + ext); rf != nil && !rf.Downloaded && strings.Contains(key, "roles/"+m[1]+"/") {
					var b strings.Builder
					b.WriteString("- hosts: all\n  tasks:\n")
					for _, l := range strings.Split(rf.Content, "\n") {
						b.WriteString("    " + l + "\n")
					}
					out = append(out, b.String())
				}
			}
		}
	}
	return out
}

// playRolesRe: a role a play lists ("roles: [reset]", "- role: reset",
// "  - reset").
var playRolesRe = refilter.MustCompile(`(?m)(?:^\s*-\s*(?:role:\s*)?|roles:\s*\[\s*)([A-Za-z0-9_.-]+)`)

// hclStrings reads an HCL list's string items ("bash", "-c", "...").
func hclStrings(list string) []string {
	var out []string
	for _, m := range hclStringRe.FindAllStringSubmatch(list, 16) {
		out = append(out, hclUnescape.Replace(m[1]))
	}
	return out
}

// hclUnescape undoes the escapes of an HCL string's body.
var hclUnescape = strings.NewReplacer(`\"`, `"`, `\\`, `\`)

var hclStringRe = refilter.MustCompile(`"((?:[^"\\]|\\.)*)"`)
