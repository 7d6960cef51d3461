package shell

import (
	"path"
	"sort"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Compiled languages carry commands the way scripts do: a program the
// session wrote is built and run ("gcc x.c -o x && ./x", "go run
// ./cmd/tool", "cargo run", "java Diag.java"), or a build file runs a
// command as a build step (.csproj Exec, mvn exec:exec). The source is
// read with the interpreter-code scanner; a binary built from session
// sources remembers them, so running it by path reads them too.

// srcLang maps source extensions to the scanner's language for them.
var srcLang = map[string]string{
	".c": "c", ".cc": "c", ".cpp": "c", ".cxx": "c", ".h": "c",
	".go": "go", ".rs": "rust", ".swift": "swift", ".java": "java",
	".kt": "java", ".kts": "java", ".cs": "java", ".scala": "java", ".groovy": "java",
}

// sourceFiles returns the session's own (not downloaded) files with an
// extension in exts under dir ("", "." or "./..." for any), sorted;
// test files (_test.go, tests/) only when tests is set, and only them
// when onlyTests is.
func (w *walker) sourceFiles(dir string, exts []string, tests, onlyTests bool) []string {
	d := strings.TrimSuffix(strings.TrimSuffix(CleanPath(dir), "/..."), "...")
	all := d == "" || d == "."
	var out []string
	for k, f := range w.st.Files {
		if f.Downloaded || !contains(exts, path.Ext(k)) {
			continue
		}
		isTest := strings.HasSuffix(k, "_test.go") || strings.Contains("/"+k, "/tests/") || strings.Contains("/"+k, "/src/test/")
		if isTest && !tests || !isTest && onlyTests {
			continue
		}
		if !all && k != d && !strings.HasPrefix(k, d+"/") && !strings.Contains(k, "/"+strings.TrimPrefix(d, "./")+"/") {
			continue
		}
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) > 16 {
		out = out[:16]
	}
	return out
}

// runSources reads the given session files as code in lang.
func (w *walker) runSources(keys []string, lang, label string, c ctx, argv []string) {
	for _, k := range keys {
		f := w.st.Files[k]
		if f == nil {
			continue
		}
		cc := c.with(label + " " + k)
		cc.crossCall = cc.crossCall || w.st.earlier("file:"+k)
		l := lang
		if l == "" {
			l = srcLang[path.Ext(k)]
		}
		for _, it := range extractScript(l, f.Content, argv) {
			w.codeItem(it, cc)
		}
	}
}

// compiledTools are the commands compiled handles.
var compiledTools = map[string]bool{
	"gcc": true, "cc": true, "clang": true, "g++": true, "c++": true, "clang++": true, "tcc": true,
	"rustc": true, "swiftc": true, "java": true, "kotlin": true, "kotlinc": true, "swift": true,
	"dotnet-script": true, "scala": true, "groovy": true, "go": true, "cargo": true, "dotnet": true,
	"gradlew": true, "mvnw": true, "mvn": true,
}

// compileOut is where a compiler writes its binary: the -o value, or the
// compiler's default.
func compileOut(args []string, def string) string {
	for i, a := range args {
		switch {
		case a == "-o" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "-o") && len(a) > 2 && !strings.HasPrefix(a, "-o="):
			return a[2:]
		}
	}
	return def
}

// recordBuild remembers that out was built from the session's sources,
// so running out reads them.
func (w *walker) recordBuild(out string, keys []string, lang string, from string) {
	if out == "" || len(keys) == 0 || Unknown(out) {
		return
	}
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(w.st.Files[k].Content)
		b.WriteByte('\n')
	}
	w.st.WriteFile(out, b.String(), false, from)
	if f := w.st.Files[CleanPath(out)]; f != nil {
		f.Lang = lang
	}
}

var (
	// <Exec Command="..."/> in an MSBuild project.
	msbuildExecRe = refilter.MustCompile(`<Exec\s+[^>]*?Command\s*=\s*"([^"]*)"`)
	msbuildPropRe = refilter.MustCompile(`\$\(([A-Za-z_]\w*)\)`)
	xmlEntities   = strings.NewReplacer("&gt;", ">", "&lt;", "<", "&amp;", "&", "&quot;", `"`, "&apos;", "'")
	// runner = "..." / runner = ["sh", "-c", "..."] and [alias] entries
	// in .cargo/config.toml.
	cargoRunnerRe = refilter.MustCompile(`(?m)^\s*runner\s*=\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*")`)
	cargoAliasRe  = refilter.MustCompile(`(?m)^\s*([A-Za-z][\w-]*)\s*=\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])`)
)

// compiled handles compilers and language tools that build and run code
// the session wrote.
func (w *walker) compiled(cmd *Command, args []string, c ctx) {
	name := cmd.Name
	if !compiledTools[name] {
		return
	}
	// A download run by a language tool ("java -jar x.jar", "kotlin
	// x.kts", a wrapper jar replaced with a download, then "./gradlew"):
	// code from the network, run.
	downloaded := func(p string) {
		if _, f := w.st.LookupFile(p); f != nil && f.Downloaded && !f.Verified {
			cmd.CodeFrom = append(cmd.CodeFrom, Source{Kind: "download", Name: firstWord(f.From), Text: f.From})
		}
	}
	files := func(exts ...string) []string {
		var out []string
		for _, a := range args {
			if contains(exts, path.Ext(a)) {
				if key, f := w.st.LookupFile(a); f != nil && !f.Downloaded {
					out = append(out, key)
				}
			}
		}
		return out
	}
	switch name {
	case "gcc", "cc", "clang", "g++", "c++", "clang++", "tcc":
		srcs := files(".c", ".cc", ".cpp", ".cxx")
		if name == "tcc" && contains(args, "-run") {
			w.runSources(srcs, "c", "tcc -run", c, nil)
			return
		}
		out := compileOut(args, "a.out")
		for _, a := range args {
			if contains([]string{".c", ".cc", ".cpp", ".cxx"}, path.Ext(a)) {
				if _, f := w.st.LookupFile(a); f != nil && f.Downloaded {
					// Built from downloaded source: the binary is a download.
					w.st.Download(out, f.From)
					return
				}
			}
		}
		w.recordBuild(out, srcs, "c", cmd.String())
	case "rustc", "swiftc":
		ext := ".rs"
		if name == "swiftc" {
			ext = ".swift"
		}
		srcs := files(ext)
		if len(srcs) > 0 {
			w.recordBuild(compileOut(args, strings.TrimSuffix(path.Base(srcs[0]), ext)), srcs, srcLang[ext], cmd.String())
		}
	case "java", "kotlin", "kotlinc", "swift", "dotnet-script", "scala", "groovy":
		// Single-file source launch: "java Diag.java", "kotlin x.main.kts",
		// "swift main.swift"; "swift run" builds the package.
		if name == "swift" && len(args) > 0 && args[0] == "run" {
			w.runSources(w.sourceFiles("Sources", []string{".swift"}, false, false), "swift", "swift run", c, nil)
			return
		}
		for i, a := range args {
			if a == "-jar" && i+1 < len(args) {
				downloaded(args[i+1])
			} else if !strings.HasPrefix(a, "-") {
				downloaded(a)
			}
		}
		srcs := files(".java", ".kts", ".kt", ".swift", ".csx", ".scala", ".groovy")
		w.runSources(srcs, "", name, c, nil)
	case "go":
		if len(args) == 0 {
			return
		}
		rest := skipOpts(args[1:], "o", "C", "p", "tags", "ldflags", "gcflags", "run", "timeout", "count")
		switch args[0] {
		case "run":
			// "go run FILE.go" is read by the caller; a package directory
			// here. A downloaded file run is fetched code run.
			for _, a := range rest {
				if strings.HasSuffix(a, ".go") {
					downloaded(a)
				}
			}
			if len(rest) > 0 && !strings.HasSuffix(rest[0], ".go") && (strings.HasPrefix(rest[0], ".") || strings.HasPrefix(rest[0], "/")) {
				w.runSources(w.sourceFiles(rest[0], []string{".go"}, false, false), "go", "go run", c, rest[1:])
			}
		case "test":
			dir := "."
			if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				dir = rest[0]
			}
			w.runSources(w.sourceFiles(dir, []string{".go"}, true, true), "go", "go test", c, nil)
		case "build":
			dir := "."
			if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
				dir = rest[0]
			}
			var srcs []string
			if strings.HasSuffix(dir, ".go") {
				srcs = files(".go")
			} else {
				srcs = w.sourceFiles(dir, []string{".go"}, false, false)
			}
			def := path.Base(CleanPath(dir))
			if def == "." || def == "/" {
				def = "main"
			}
			w.recordBuild(compileOut(args, strings.TrimSuffix(def, ".go")), srcs, "go", cmd.String())
		}
	case "cargo":
		if len(args) == 0 {
			return
		}
		sub := args[0]
		if key, cfg := w.st.LookupFile(".cargo/config.toml"); cfg != nil && !cfg.Downloaded && strings.HasSuffix(key, ".cargo/config.toml") {
			// An alias the session wrote: "cargo setup" is "cargo
			// <alias value>".
			for _, m := range cargoAliasRe.FindAllStringSubmatch(cfg.Content, 16) {
				if m[1] == sub && strings.Contains(cfg.Content, "[alias]") {
					w.sub("cargo "+tomlCommand(m[2])+" "+strings.Join(quoteAll(args[1:]), " "), c.with("cargo alias "+sub), nil)
					return
				}
			}
			if sub == "run" || sub == "test" || sub == "r" || sub == "t" {
				// A runner wraps every binary cargo runs.
				if m := cargoRunnerRe.FindStringSubmatch(cfg.Content); m != nil {
					w.sub(tomlCommand(m[1]), c.with("cargo runner"), nil)
				}
			}
		}
		switch sub {
		case "run", "r":
			bin := ""
			for i, a := range args {
				if a == "--bin" && i+1 < len(args) {
					bin = args[i+1]
				}
			}
			w.runSources(w.cargoBinSources(bin), "rust", "cargo run", c, nil)
		case "test", "t":
			var srcs []string
			for _, k := range w.sourceFiles("", []string{".rs"}, true, false) {
				if f := w.st.Files[k]; strings.Contains("/"+k, "/tests/") || strings.Contains(f.Content, "#[test]") {
					srcs = append(srcs, k)
				}
			}
			w.runSources(srcs, "rust", "cargo test", c, nil)
		}
	case "dotnet":
		if len(args) == 0 {
			return
		}
		switch args[0] {
		case "build", "run", "test", "publish", "pack", "msbuild":
			for _, k := range w.sourceFiles("", []string{".csproj", ".fsproj", ".vbproj", ".props", ".targets"}, true, false) {
				for _, m := range msbuildExecRe.FindAllStringSubmatch(w.st.Files[k].Content, 8) {
					cc := c.with("dotnet " + args[0] + " " + k)
					cc.crossCall = cc.crossCall || w.st.earlier("file:"+k)
					// $(HOME) is an MSBuild property, read from the
					// environment: the shell's ${HOME}.
					w.sub(msbuildPropRe.ReplaceAllString(xmlEntities.Replace(m[1]), "$${$1}"), cc, nil)
				}
			}
			if args[0] == "run" || args[0] == "test" {
				w.runSources(w.sourceFiles("", []string{".cs"}, args[0] == "test", false), "java", "dotnet "+args[0], c, nil)
			}
		}
	case "gradlew", "mvnw":
		downloaded("gradle/wrapper/gradle-wrapper.jar")
		downloaded(".mvn/wrapper/maven-wrapper.jar")
		if name == "mvnw" {
			w.mvnExec(args, c)
		}
	case "mvn":
		w.mvnExec(args, c)
	}
}

// mvnExec reads "mvn exec:exec": it runs -Dexec.executable with
// -Dexec.args.
func (w *walker) mvnExec(args []string, c ctx) {
	exe, xargs := "", ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-Dexec.executable="); ok {
			exe = v
		}
		if v, ok := strings.CutPrefix(a, "-Dexec.args="); ok {
			xargs = v
		}
	}
	if exe != "" && contains(args, "exec:exec") {
		w.sub(quote(exe)+" "+xargs, c.with("mvn exec:exec"), nil)
	}
}

// tomlCommand reads a TOML string or array of strings as a shell line.
func tomlCommand(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") {
		if vals, ok := readList(v, nil); ok {
			return strings.Join(quoteAll(vals), " ")
		}
		return ""
	}
	s, _, ok := readStrExpr(v, nil)
	if !ok {
		return ""
	}
	return s
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

// cargoBinSources are the session's Rust sources of a cargo binary:
// src/bin/NAME.rs (or src/bin/NAME/main.rs), else src/main.rs; with no
// name, every binary's.
func (w *walker) cargoBinSources(bin string) []string {
	var named, main []string
	for _, k := range w.sourceFiles("", []string{".rs"}, false, false) {
		switch {
		case bin != "" && (strings.HasSuffix(k, "src/bin/"+bin+".rs") || strings.HasSuffix(k, "src/bin/"+bin+"/main.rs")):
			named = append(named, k)
		case bin == "" && strings.Contains(k, "src/bin/"):
			named = append(named, k)
		case strings.HasSuffix(k, "src/main.rs"):
			main = append(main, k)
		}
	}
	if len(named) > 0 && bin != "" {
		return named
	}
	return append(named, main...)
}
