package shell

import (
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// State is what one shell session remembers between commands: variables,
// arrays, aliases, functions and the files it wrote or downloaded. A
// caller keeps one State per agent session and passes it to every Parse,
// which both reads and updates it. The zero value is not usable; call
// NewState.
type State struct {
	Vars    map[string]string
	Arrays  map[string][]string
	Aliases map[string]string
	// GitAliases are git aliases defined in the session ("git config
	// alias.pf 'push --force'"); a value starting with "!" is a shell
	// command.
	GitAliases map[string]string
	Funcs      map[string]string // function name -> body source
	// Assoc are associative arrays (declare -A m=([a]=rm [b]=-rf)),
	// created on first use.
	Assoc map[string]map[string]string
	Files map[string]*File // cleaned path -> what was written there
	// Origins maps a path to the path it is a copy, move or link of when
	// that source's content is not known ("ln -s ~/.ssh/id_rsa k.txt"),
	// so reading the new name is reading the old one.
	Origins map[string]string
	// Cwd is the working directory as far as it is known: set by the
	// caller from the ledger (Call.Cwd) and by "cd" with a known path.
	Cwd string
	// CwdByCd is set when Cwd came from a "cd" in the session rather
	// than from the client's record: the agent chose to go there.
	CwdByCd bool
	// Links maps a link's (or a moved directory's new) path to the
	// original, for deletes that reach the original through it.
	Links map[string]string
	// GitBranch is the branch the session last checked out.
	GitBranch string
	// SourcedEnv is the last secrets file ("." or "source" of .env,
	// .env.production, prod.env) loaded into the shell: a later dump of
	// the whole environment (env, printenv, export -p, set) prints it.
	SourcedEnv string
	// VarFrom maps a variable assigned from a command substitution
	// ("TOKEN=$(gh auth token)") to that substitution's source text, so
	// a later use ("curl -d t=$TOKEN URL") can be read for what the
	// value is, not only as an unknown.
	VarFrom map[string]string
	// varSrcs are the commands whose output a variable holds (V=$(docker
	// volume ls -q)), for a later "docker volume rm $V": its arguments
	// come from them, as with the substitution written inline.
	varSrcs map[string][]Source
	// FileEnv are environment selectors (DATABASE_URL, DB_HOST, ...)
	// that the session wrote into a .env file: the frameworks that read
	// those files act on that database.
	FileEnv map[string]string
	// DownloadDirs are directories a downloaded archive was unpacked
	// into (cleaned path -> the command that fetched it): every file
	// below one is a download.
	DownloadDirs map[string]string
	// Mounts are the host directories mounted into containers the
	// session started by name ("docker run --name dbg -v $HOME:/h"), as
	// {host, container} pairs, for a later "docker exec dbg ...".
	Mounts map[string][][2]string
	// Tunnels are local ports the session forwarded to another host
	// ("ssh -L 6543:db-prod:5432 bastion", "kubectl port-forward
	// svc/pg-prod 6543:5432"): localhost on that port is that host.
	Tunnels map[string]string
	// NetFds are file descriptors the session opened on a network
	// pseudo-device ("exec 3<>/dev/tcp/HOST/80"), by number.
	NetFds map[string]string
	// Kernel holds, per interpreter, the imports and assignments earlier
	// execute_code cells left in the shared kernel (AddKernelCell).
	Kernel map[string]string
	// DirStack is pushd's stack of directories left, for popd.
	DirStack []string
	// wrotePython: the session wrote a .py file (a module code may
	// import).
	wrotePython bool
	// gen counts Parse calls; with origin it tells whether something
	// was set by an earlier call, so commands relying on it are marked
	// "cross-call".
	gen int
	// origin[name] is the Parse generation that set a variable, alias,
	// function or file; when it is older than the current one, using it
	// is a cross-call dependency.
	origin map[string]int
	// codeMemo keeps what the code scanner found in a project file the
	// session runs again and again (every pytest, make or rake run
	// rescans the same conftest.py, Makefile or test modules). The
	// scanner is a pure function of language and text; a Clone starts
	// without it.
	codeMemo map[codeKey][]codeItem
}

type codeKey struct{ lang, code string }

// maxCodeMemo bounds codeMemo per session; it is emptied when full.
const maxCodeMemo = 32

// extractMemo is extractCode through the session's memo. Callers must
// not modify the items' slices.
func (s *State) extractMemo(lang, code string) []codeItem {
	k := codeKey{lang, code}
	if items, ok := s.codeMemo[k]; ok {
		return items
	}
	items := extractCode(lang, code)
	if s.codeMemo == nil || len(s.codeMemo) >= maxCodeMemo {
		s.codeMemo = map[codeKey][]codeItem{}
	}
	s.codeMemo[k] = items
	return items
}

// File is something written to a path during the session.
type File struct {
	Content string
	// Downloaded is set when the content came from the network (curl -o,
	// wget, "curl URL > f"); Content is then unknown and empty.
	Downloaded bool
	// From is the normalised command that wrote the file.
	From string
	// Lang is set for a binary built from the session's sources: the
	// language of the sources Content then holds.
	Lang string
	// Verified is set on a download the session then checked against a
	// checksum or signature (sha256sum -c, gpg --verify, cosign
	// verify-blob): running it is an install, not a blind pipe-to-shell.
	Verified bool
}

// NewState returns an empty session state.
func NewState() *State {
	return &State{
		Vars: map[string]string{}, Arrays: map[string][]string{}, Aliases: map[string]string{}, GitAliases: map[string]string{},
		Funcs: map[string]string{}, Files: map[string]*File{}, Origins: map[string]string{}, origin: map[string]int{},
	}
}

// Clone returns a deep copy, used to evaluate a command without letting
// it change the session (policy check of a single call).
func (s *State) Clone() *State {
	c := NewState()
	for k, v := range s.Vars {
		c.Vars[k] = v
	}
	for k, v := range s.Arrays {
		c.Arrays[k] = append([]string(nil), v...)
	}
	for k, v := range s.Assoc {
		if c.Assoc == nil {
			c.Assoc = map[string]map[string]string{}
		}
		c.Assoc[k] = maps.Clone(v)
	}
	for k, v := range s.Aliases {
		c.Aliases[k] = v
	}
	for k, v := range s.Funcs {
		c.Funcs[k] = v
	}
	for k, v := range s.GitAliases {
		c.GitAliases[k] = v
	}
	for k, v := range s.Files {
		f := *v
		c.Files[k] = &f
	}
	for k, v := range s.Origins {
		c.Origins[k] = v
	}
	for k, v := range s.origin {
		c.origin[k] = v
	}
	c.gen = s.gen
	c.Cwd = s.Cwd
	c.CwdByCd = s.CwdByCd
	c.SourcedEnv = s.SourcedEnv
	c.GitBranch = s.GitBranch
	// Maps a session may never use stay nil (maps.Clone keeps nil).
	c.FileEnv = maps.Clone(s.FileEnv)
	c.DownloadDirs = maps.Clone(s.DownloadDirs)
	c.NetFds = maps.Clone(s.NetFds)
	c.VarFrom = maps.Clone(s.VarFrom)
	c.varSrcs = maps.Clone(s.varSrcs)
	c.Links = maps.Clone(s.Links)
	c.Mounts = maps.Clone(s.Mounts) // values are never modified in place
	c.Tunnels = maps.Clone(s.Tunnels)
	c.Kernel = maps.Clone(s.Kernel)
	c.DirStack = append([]string(nil), s.DirStack...)
	c.wrotePython = s.wrotePython
	return c
}

// kernelEffectRe are calls with an effect of their own: a line making one
// is not carried into later cells, where it would count again.
var kernelEffectRe = refilter.MustCompile(`\b(?:open|system|popen|run|call|check_output|check_call|Popen|post|put|urlopen|urlretrieve|remove|unlink|rmtree|rmdir|exec|eval|execfile|write|write_text|send|sendall|connect|spawn|fork|kill|truncate|chmod|delete|print)\s*\(`)

var kernelValueRe = refilter.MustCompile(`=.*(?:[~/]|environ|process\.env|ENV\[|getenv|https?:)`)

var kernelLineRe = refilter.MustCompile(`^(?:import\s|from\s+\S+\s+import\s|[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*=[^=]|os\.environ\[\s*['"]\w+['"]\s*\]\s*=[^=]|os\.(?:putenv|environ\.setdefault)\()`)

// KernelPrelude is what earlier code cells of one interpreter left
// defined in its kernel that code uses: the assignments of names it
// mentions (and the imports), to read the cell in, as a notebook's cells
// share one process. "" when the cell uses none, so that repeated cells
// keep hitting the extraction memo.
func (s *State) KernelPrelude(lang, code string) string {
	k := s.Kernel[lang]
	if k == "" {
		return ""
	}
	var b strings.Builder
	used := false
	inDef := false // within a def block the cell does not call
	for _, l := range strings.Split(k, "\n") {
		if l == "" {
			continue
		}
		if name, ok := kernelDefName(l); ok {
			// A function an earlier cell defined, kept when this cell
			// calls it (its body is what the call runs).
			inDef = !mentionsAny(code, map[string]bool{name: true})
			if inDef {
				continue
			}
			used = true
		} else if l[0] == ' ' || l[0] == '\t' {
			if inDef {
				continue
			}
		} else {
			inDef = false
		}
		if m := kernelNameRe.FindStringSubmatch(l); m != nil {
			if !mentionsAny(code, map[string]bool{m[1]: true}) {
				continue
			}
			used = true
		} else if m := kernelEnvRe.FindStringSubmatch(l); m != nil {
			// os.environ["OUT"] = ...: the kernel's environment, which
			// a command this cell starts sees as $OUT.
			if !mentionsAny(code, map[string]bool{m[1] + m[2]: true}) {
				continue
			}
			used = true
		}
		b.WriteString(l + "\n")
	}
	if !used {
		return ""
	}
	return b.String()
}

var (
	kernelNameRe = refilter.MustCompile(`^([A-Za-z_]\w*)\s*(?:,|=[^=])`)
	kernelEnvRe  = refilter.MustCompile(`^os\.(?:environ\[\s*['"](\w+)['"]|(?:putenv|environ\.setdefault)\(\s*['"](\w+)['"])`)
)

// kernelDefName is the name a top-level "def NAME(" line defines.
func kernelDefName(l string) (string, bool) {
	rest, ok := strings.CutPrefix(l, "def ")
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(strings.TrimLeft(rest, " "), "(")
	return name, ok && name != "" && identAt(name) == name
}

// AddKernelCell keeps a cell's top-level imports and assignments without
// effects of their own for the cells after it (at most 8 KB, the latest).
func (s *State) AddKernelCell(lang, code string) {
	if !strings.ContainsAny(code, "~/") && !strings.Contains(code, "env") && !strings.Contains(code, "ENV") && !strings.Contains(code, "def ") {
		return // no line could hold a path, a URL or the environment
	}
	var b strings.Builder
	if strings.HasPrefix(lang, "python") {
		// Top-level functions whose body has an effect: a later cell's
		// call runs it with that cell's arguments.
		for _, d := range pyDefs(code) {
			if kernelEffectRe.MatchString(d.body) && !strings.HasPrefix(code[d.start:], " ") && !strings.HasPrefix(code[d.start:], "\t") {
				b.WriteString(strings.TrimRight(code[d.start:d.end], "\n") + "\n")
			}
		}
	}
	for _, l := range strings.Split(code, "\n") {
		// Only names whose value could matter later: a path, a URL or
		// the environment ("df = pd.read_csv('data.csv')" is not
		// carried, so ordinary cells keep hitting the extraction memo).
		// A name bound to what the network returned is kept too, for the
		// cell that runs it (src = urlopen(URL).read(), then exec(src)).
		netBound := kernelNameRe.MatchString(l) && netReadRe.MatchString(l)
		if kernelLineRe.MatchString(l) && (!kernelEffectRe.MatchString(l) || netBound) && (strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ") || kernelValueRe.MatchString(l)) {
			b.WriteString(l + "\n")
		}
	}
	if b.Len() == 0 {
		return
	}
	if s.Kernel == nil {
		s.Kernel = map[string]string{}
	}
	k := s.Kernel[lang] + b.String()
	if len(k) > 8<<10 {
		k = k[len(k)-8<<10:]
		if i := strings.IndexByte(k, '\n'); i >= 0 {
			k = k[i+1:]
		}
	}
	s.Kernel[lang] = k
}

func (s *State) setTunnel(port, host string) {
	if s.Tunnels == nil {
		s.Tunnels = map[string]string{}
	}
	if len(s.Tunnels) < 64 && port != "" && host != "" {
		s.Tunnels[port] = host
	}
}

func (s *State) setMounts(name string, mounts [][2]string) {
	if s.Mounts == nil {
		s.Mounts = map[string][][2]string{}
	}
	if len(s.Mounts) < 64 {
		s.Mounts[name] = mounts
	}
}

// maxFiles bounds memory on long sessions that write thousands of files:
// the oldest entries are the least likely to be executed later.
const maxFiles = 2000

// maxFileBytes bounds what is kept of one file's content.
const maxFileBytes = 64 << 10

// WriteFile records that the session wrote content to p (a write_file or
// Write tool call, or a redirect). append adds to what is known.
func (s *State) WriteFile(p, content string, appendTo bool, from string) {
	key := CleanPath(p)
	if key == "" {
		return
	}
	if appendTo {
		if f, ok := s.Files[key]; ok && !f.Downloaded {
			content = f.Content + content
		}
	}
	if len(content) > maxFileBytes {
		content = content[:maxFileBytes]
	}
	if len(s.Files) >= maxFiles {
		s.evictFile()
	}
	s.Files[key] = &File{Content: content, From: from}
	s.origin["file:"+key] = s.gen
	if strings.HasSuffix(key, ".py") {
		s.wrotePython = true
	}
	if b := path.Base(key); strings.HasPrefix(b, ".env") {
		s.noteEnvFile(b, content)
	} else if u := dbConfigURL(b, content); u != "" {
		// alembic.ini, flyway.conf: the migration tool run next acts on
		// the database the file now names.
		if s.FileEnv == nil {
			s.FileEnv = map[string]string{}
		}
		s.FileEnv["DATABASE_URL"] = u
	}
}

// dbConfigKeyRe finds the database URL in a migration tool's config.
var dbConfigKeyRe = refilter.MustCompile(`(?m)^\s*(?:sqlalchemy\.url|flyway\.url|url|changeLogFile\.url)\s*[=:]\s*["']?([^\s"']+)`)

// dbConfigURL returns the database URL a migration tool's config file
// (alembic.ini, flyway.conf, liquibase.properties) names, or "".
func dbConfigURL(base, content string) string {
	switch base {
	case "alembic.ini", "flyway.conf", "flyway.toml", "liquibase.properties":
	default:
		return ""
	}
	if m := dbConfigKeyRe.FindStringSubmatch(content); m != nil && strings.Contains(m[1], "://") {
		return m[1]
	}
	return ""
}

// EditFile applies an Edit-style replacement to a known file, or records
// the new text when the file's content is not known.
func (s *State) EditFile(p, oldText, newText string, from string) {
	key := CleanPath(p)
	if f, ok := s.Files[key]; ok && !f.Downloaded && oldText != "" && strings.Contains(f.Content, oldText) {
		s.WriteFile(p, strings.Replace(f.Content, oldText, newText, 1), false, from)
		return
	}
	s.WriteFile(p, newText, false, from)
}

// Download records that p holds content fetched from the network.
func (s *State) Download(p, from string) {
	key := CleanPath(p)
	if key == "" {
		return
	}
	if len(s.Files) >= maxFiles {
		s.evictFile()
	}
	s.Files[key] = &File{Downloaded: true, From: from}
	s.origin["file:"+key] = s.gen
}

func (s *State) evictFile() {
	oldest, og := "", -1
	keys := make([]string, 0, len(s.Files))
	for k := range s.Files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if g := s.origin["file:"+k]; og < 0 || g < og {
			oldest, og = k, g
		}
	}
	delete(s.Files, oldest)
	delete(s.origin, "file:"+oldest)
}

// LookupFile finds a file the session wrote, by its path or, failing
// that, by a unique base name (the agent may write an absolute path and
// run it relative to the working directory).
func (s *State) LookupFile(p string) (string, *File) {
	key := CleanPath(p)
	if f := s.lookupExact(key); f != nil {
		return key, f
	}
	base := path.Base(key)
	var hit string
	for k := range s.Files {
		if path.Base(k) == base {
			if hit != "" {
				return "", nil
			}
			hit = k
		}
	}
	if hit == "" {
		return "", nil
	}
	return hit, s.Files[hit]
}

// setVarSources records the commands whose output variable name now
// holds, when there are a few (up to 8) to keep.
func (s *State) setVarSources(name string, srcs []Source) {
	if len(srcs) == 0 || len(srcs) > 8 {
		return
	}
	if s.varSrcs == nil {
		s.varSrcs = map[string][]Source{}
	}
	s.varSrcs[name] = append([]Source(nil), srcs...)
}

func (s *State) setVar(name, val string) {
	s.Vars[name] = val
	delete(s.VarFrom, name)
	delete(s.varSrcs, name)
	delete(s.Arrays, name)
	s.origin["var:"+name] = s.gen
}

func (s *State) setArray(name string, vals []string) {
	s.Arrays[name] = vals
	delete(s.Vars, name)
	delete(s.Assoc, name)
	s.origin["var:"+name] = s.gen
}

func (s *State) setAssoc(name string, m map[string]string) {
	if s.Assoc == nil {
		s.Assoc = map[string]map[string]string{}
	}
	s.Assoc[name] = m
	delete(s.Vars, name)
	delete(s.Arrays, name)
	s.origin["var:"+name] = s.gen
}

func (s *State) unset(name string) {
	delete(s.Vars, name)
	delete(s.Arrays, name)
	delete(s.Funcs, name)
}

// earlier reports whether key was set by an earlier Parse.
func (s *State) earlier(key string) bool {
	g, ok := s.origin[key]
	return ok && g < s.gen
}

// CleanPath normalises a path for file tracking and matching: "./x" is
// "x", "a//b/../c" is "a/c", "$HOME/x" is "~/x". Trailing slashes go.
func CleanPath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	switch {
	case strings.HasPrefix(p, "$HOME"):
		p = "~" + strings.TrimPrefix(p, "$HOME")
	case strings.HasPrefix(p, "${HOME}"):
		p = "~" + strings.TrimPrefix(p, "${HOME}")
	case len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && (p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z'):
		// C:\src\x.ps1 written by a file tool and run as C:\src\x.ps1
		// or /src/x.ps1: one file.
		p = winPath(p)
	case p[0] == '%':
		// A cmd.exe directory variable (%TEMP%\x.bat): the POSIX parse
		// of a word ate the backslash after it ("%TEMP%x.bat"), the
		// Windows reading kept it; both name the same file.
		if i := strings.IndexByte(p[1:], '%'); i > 0 {
			if d, ok := winDirs[strings.ToLower(p[:i+2])]; ok {
				rest := strings.TrimLeft(strings.ReplaceAll(p[i+2:], `\`, "/"), "/")
				p = d + "/" + rest
			} else if strings.EqualFold(p[:i+2], "%userprofile%") {
				p = "~/" + strings.TrimLeft(strings.ReplaceAll(p[i+2:], `\`, "/"), "/")
			}
		}
	}
	c := path.Clean(p)
	return c
}

// setOrigin records that dst is a copy, move or link of src.
func (s *State) setOrigin(dst, src string) {
	d, o := CleanPath(dst), CleanPath(src)
	if d == "" || o == "" || d == o || Unknown(d) || Unknown(o) {
		return
	}
	if len(s.Origins) >= maxFiles {
		return
	}
	s.Origins[d] = o
	s.origin["orig:"+d] = s.gen
}

func (s *State) setLink(dst, src string) {
	if s.Links == nil {
		s.Links = map[string]string{}
	}
	if len(s.Links) < maxFiles {
		s.Links[CleanPath(dst)] = CleanPath(src)
	}
}

// linkTarget is where a write to p lands when p, or a directory above
// it, is a link the session made; "" otherwise.
func (s *State) linkTarget(p string) string {
	if len(s.Links) == 0 || Unknown(p) {
		return ""
	}
	if o, ok := s.Links[CleanPath(p)]; ok {
		return o
	}
	return s.throughLink(p)
}

// throughLink returns the original a path below a link (or a moved
// directory) reaches: "build/*" after "ln -s ~ build" is "~/*". The link
// itself is not the original: "rm build" removes the link.
func (s *State) throughLink(p string) string {
	if len(s.Links) == 0 || Unknown(p) {
		return ""
	}
	c := CleanPath(p)
	if strings.HasSuffix(p, "/") {
		// "link/" names the directory the link points to.
		if o, ok := s.Links[c]; ok {
			return o
		}
	}
	for k := path.Dir(c); k != "." && k != "/" && k != ""; k = path.Dir(k) {
		if o, ok := s.Links[k]; ok {
			return CleanPath(o + strings.TrimPrefix(c, k))
		}
		if !strings.Contains(k, "/") {
			break
		}
	}
	return ""
}

// OriginOf returns the path p is a copy, move or link of (or lies below
// one of), made earlier in the session from a file it did not write; ""
// when there is none.
func (s *State) OriginOf(p string) string {
	o, _ := s.originOf(p)
	return o
}

// originOf returns the path p is a copy or link of ("/tmp/b/id_rsa" when
// /tmp/b is a copy of ~/.ssh gives ~/.ssh/id_rsa), and whether that was
// recorded by an earlier call.
func (s *State) originOf(p string) (string, bool) {
	if len(s.Origins) == 0 || Unknown(p) {
		return "", false
	}
	c := CleanPath(p)
	for k := c; k != "." && k != "/" && k != ""; k = path.Dir(k) {
		if o, ok := s.Origins[k]; ok {
			return CleanPath(o + strings.TrimPrefix(c, k)), s.earlier("orig:" + k)
		}
		if !strings.Contains(k, "/") {
			break
		}
	}
	return "", false
}

// DownloadDir records that a downloaded archive was unpacked into dir.
func (s *State) DownloadDir(dir, from string) {
	key := CleanPath(dir)
	if key == "" || key == "." || key == "/" || key == "~" {
		return
	}
	if s.DownloadDirs == nil {
		s.DownloadDirs = map[string]string{}
	}
	if len(s.DownloadDirs) < 64 {
		s.DownloadDirs[key] = from
		s.origin["file:"+key] = s.gen
	}
}

// noteEnvFile reads the environment selectors out of a .env file the
// session wrote or edited (.env, .env.production, .env.development;
// not the .example / .sample / .template files, which nothing loads).
func (s *State) noteEnvFile(base, content string) {
	if base != ".env" && !strings.HasPrefix(base, ".env.") {
		return
	}
	switch strings.TrimPrefix(base, ".env.") {
	case "example", "sample", "template", "dist", "defaults":
		return
	}
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		name, val, ok := strings.Cut(line, "=")
		if !ok || !isSelector(name) {
			continue
		}
		if s.FileEnv == nil {
			s.FileEnv = map[string]string{}
		}
		s.FileEnv[name] = strings.Trim(strings.TrimSpace(val), `"'`)
	}
}

// lookupExact is LookupFile without the base-name fallback, for a
// cleaned path: a file written there, or one unpacked from a download.
func (s *State) lookupExact(key string) *File {
	if f, ok := s.Files[key]; ok {
		return f
	}
	for d, from := range s.DownloadDirs {
		if strings.HasPrefix(key, d+"/") {
			return &File{Downloaded: true, From: from}
		}
	}
	return nil
}
