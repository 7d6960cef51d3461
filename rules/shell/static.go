package shell

import (
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"mvdan.cc/sh/v3/expand"
)

// staticOut computes what a command prints when that follows from its
// arguments and known input alone: echo, printf, cat of a heredoc or a
// file written earlier, and the decoders an attacker chains in front of a
// shell (base64 -d, xxd -r, rev). Nothing is executed.
func staticOut(name string, args []string, in stdinInfo, st *State) (string, bool) {
	for _, a := range args {
		if Unknown(a) || FromStdin(a) {
			return "", false
		}
	}
	switch name {
	case "awk", "gawk", "mawk", "nawk":
		// awk 'BEGIN{print "..."}' and printf with %c codes: a program
		// that reads nothing prints what it spells.
		if len(args) == 1 {
			return awkBeginOut(args[0])
		}
		return "", false
	case "echo":
		nl, esc := true, false
		i := 0
		for ; i < len(args); i++ {
			a := args[i]
			if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
				break
			}
			nl = nl && !strings.Contains(a, "n")
			esc = esc || strings.Contains(a, "e")
		}
		s := strings.Join(args[i:], " ")
		if esc {
			// echo -e's octal escapes are \0NNN (up to three digits after
			// the 0), which printf's %b does not read the same way.
			s, _, _ = expand.Format(&expand.Config{}, "%b", []string{echoOctal(s)})
		}
		if nl {
			s += "\n"
		}
		return s, true
	case "printf":
		if len(args) == 0 {
			return "", true
		}
		if args[0] == "-v" {
			return "", true
		}
		f := args
		if f[0] == "--" {
			f = f[1:]
		}
		if len(f) == 0 {
			return "", true
		}
		// The format is reused while arguments remain: printf '%s ' rm
		// -rf /var prints "rm -rf /var ".
		var b strings.Builder
		rest := f[1:]
		if strings.Contains(f[0], "%b") {
			// %b reads octal as \0NNN, as echo -e does (printf '%b'
			// '\0162\0155' prints "rm"); the Go formatter reads \NNN.
			rest = slices.Clone(rest)
			for i, a := range rest {
				rest[i] = echoOctal(a)
			}
		}
		for i := 0; i < 64; i++ {
			s, n, err := expand.Format(&expand.Config{}, f[0], rest)
			if err != nil {
				return "", false
			}
			b.WriteString(s)
			if n <= 0 || n >= len(rest) {
				break
			}
			rest = rest[n:]
		}
		return b.String(), true
	case "cat", "tee":
		if name == "cat" && len(args) > 0 {
			var b strings.Builder
			for _, a := range args {
				if a == "-" {
					if !in.known {
						return "", false
					}
					b.WriteString(in.content)
					continue
				}
				if strings.HasPrefix(a, "-") {
					continue
				}
				_, f := st.LookupFile(a)
				if f == nil || f.Downloaded {
					return "", false
				}
				b.WriteString(f.Content)
			}
			return b.String(), true
		}
		return in.content, in.known
	case "base64", "gbase64", "openssl", "b64":
		if !decodeFlag(name, args) {
			return "", false
		}
		if name != "openssl" {
			// base64 -d FILE: a file the session wrote.
			if in2, ok := fileInput(args, st); ok {
				in = in2
			}
		}
		if !in.known {
			return "", false
		}
		return decodeB64(in.content)
	case "base32", "gbase32":
		if !contains(args, "-d") && !contains(args, "--decode") && !contains(args, "-D") {
			return "", false
		}
		if in2, ok := fileInput(args, st); ok {
			in = in2
		}
		if !in.known {
			return "", false
		}
		out, err := base32.StdEncoding.DecodeString(strings.TrimSpace(strings.ReplaceAll(in.content, "\n", "")))
		if err != nil || !printable(string(out)) {
			return "", false
		}
		return string(out), true
	case "gunzip", "zcat", "gzip":
		if name == "gzip" && !contains(args, "-d") && !contains(args, "-dc") && !contains(args, "-cd") && !contains(args, "--decompress") {
			return "", false
		}
		if in2, ok := fileInput(args, st); ok && (name == "zcat" || contains(args, "-c") || contains(args, "-dc") || contains(args, "-cd") || contains(args, "--stdout")) {
			in = in2 // zcat FILE, gunzip -c FILE (without -c the file is decompressed in place)
		}
		if !in.known {
			return "", false
		}
		zr, err := gzip.NewReader(strings.NewReader(in.content))
		if err != nil {
			return "", false
		}
		// Bounded: a payload is short; a bomb is not worth reading.
		out, err := io.ReadAll(io.LimitReader(zr, maxGunzip))
		if err != nil && len(out) == 0 {
			return "", false
		}
		return string(out), true
	case "xxd":
		if in2, ok := fileInput(args, st); ok {
			in = in2 // xxd -r -p FILE
		}
		if !in.known || !contains(args, "-r") {
			return "", false
		}
		b, err := hex.DecodeString(strings.Join(strings.Fields(in.content), ""))
		return string(b), err == nil
	case "rev":
		if in2, ok := fileInput(args, st); ok {
			in = in2 // rev FILE
		}
		if !in.known {
			return "", false
		}
		lines := strings.Split(strings.TrimSuffix(in.content, "\n"), "\n")
		for i, l := range lines {
			r := []rune(l)
			for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
			lines[i] = string(r)
		}
		return strings.Join(lines, "\n") + "\n", true
	case "mktemp":
		// A fresh temporary path: what matters is that it is under /tmp.
		tmpl, dir := "", "/tmp"
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case (a == "-p" || a == "--tmpdir") && i+1 < len(args):
				dir = args[i+1]
				i++
			case strings.HasPrefix(a, "--tmpdir="):
				dir = strings.TrimPrefix(a, "--tmpdir=")
			case strings.HasPrefix(a, "-"):
			default:
				tmpl = a
			}
		}
		switch {
		case tmpl == "":
			return dir + "/tmp.XXXXXXXXXX\n", true
		case strings.Contains(tmpl, "/"):
			return tmpl + "\n", true
		default:
			return dir + "/" + tmpl + "\n", true
		}
	case "find":
		// What find prints is unknown, but its shape is not: ROOT/NAME.
		// "$(find ~/.ssh -name 'id_*')" stands for "~/.ssh/id_*".
		var roots []string
		name := "*"
		for i := 0; i < len(args); i++ {
			a := args[i]
			if (a == "-name" || a == "-iname") && i+1 < len(args) {
				negated := i > 0 && (args[i-1] == "!" || args[i-1] == "-not")
				if name == "*" && !negated {
					name = args[i+1]
				}
				i++
				continue
			}
			if p, ok := findPathTail(args, i); ok {
				if name == "*" {
					name = p
				}
				i++
				continue
			}
			if len(roots) == i && !strings.HasPrefix(a, "-") && a != "(" && a != "!" {
				roots = append(roots, a)
			}
		}
		if len(roots) == 0 {
			roots = []string{"."}
		}
		var b strings.Builder
		for _, r := range roots {
			b.WriteString(findItem(r, name, args) + "\n")
		}
		return b.String(), true
	case "pwd":
		return ".\n", true
	case "go", "npm", "yarn", "pip", "pip3", "brew", "pnpm", "composer", "poetry", "uv", "biber", "bazel", "bazelisk":
		// Tools printing where their own cache lives ("$(go env
		// GOCACHE)"): the usual place, which is what a delete of it
		// reaches.
		if p, ok := toolCacheDirs[name+" "+strings.Join(args, " ")]; ok {
			return p + "\n", true
		}
		return "", false
	case "losetup":
		// "$(losetup -fP --show disk.img)": the first free loop device,
		// now backed by the image file (a device of its own, not a disk).
		show, find := false, false
		for _, a := range args {
			switch {
			case a == "--show":
				show = true
			case a == "--find" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f"):
				find = true
			}
		}
		if show && find {
			return "/dev/loop0\n", true
		}
		return "", false
	case "xcrun":
		// "$(xcrun simctl get_app_container booted BUNDLE data)": a
		// simulator app's sandbox, under the simulator's device tree
		// (which "simctl erase" wipes whole).
		if len(args) >= 4 && args[0] == "simctl" && args[1] == "get_app_container" && !Unknown(args[2]) && !Unknown(args[3]) {
			return "~/Library/Developer/CoreSimulator/Devices/" + args[2] + "/data/Containers/Data/Application/" + args[3] + "\n", true
		}
		return "", false
	case "readlink", "realpath":
		// The path itself, resolved; what it names is what matters.
		var b strings.Builder
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				b.WriteString(a + "\n")
			}
		}
		return b.String(), b.Len() > 0
	case "locate", "mlocate", "plocate", "fd", "fdfind":
		// Paths anywhere that contain the pattern: the shape is
		// ROOT/**/*PATTERN*.
		var pat, root string
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			switch {
			case pat == "":
				pat = a
			case root == "" && (name == "fd" || name == "fdfind"):
				root = a
			}
		}
		if pat == "" || strings.ContainsAny(pat, "/") {
			return "", false
		}
		if root == "" {
			root = "/"
			if name == "fd" || name == "fdfind" {
				root = "."
			}
		}
		pat = strings.Trim(pat, "^$")
		return strings.TrimRight(root, "/") + "/**/*" + strings.Trim(pat, "*") + "*\n", true
	case "ls":
		// "ls ~/.ssh/id_*" prints what the glob matches: the shape is
		// the glob itself. A plain directory lists unknown names.
		var b strings.Builder
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if !strings.ContainsAny(a, "*?[") {
				return "", false
			}
			b.WriteString(a + "\n")
		}
		return b.String(), b.Len() > 0
	case "python", "python3", "python2", "pypy3", "node", "nodejs", "ruby", "perl", "bun", "deno":
		// python3 -c 'print("...")': what the one-liner prints.
		if code, ok := interpCode(name, args); ok {
			return printedOutput(code)
		}
	case "grep", "egrep", "fgrep", "rg":
		return grepOut(name, args, in, st)
	case "sed", "gsed":
		if out, exec, ok := sedOut(args, in, st); ok && !exec {
			return out, true
		}
		return "", false
	case "jq", "gojq":
		return jqOut(args, in, st)
	case "head", "tail", "sort", "uniq":
		// Filters keep the shape of known input; which lines survive
		// does not matter to what the words are.
		if in.known {
			for _, a := range args {
				if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") && !isNum(a) {
					return "", false
				}
			}
			return in.content, true
		}
	case "which", "command", "type", "whence", "where":
		// "$(which rm)" / "$(command -v rm)" is a path to that program;
		// where it lives does not matter, its name does.
		var b strings.Builder
		for _, a := range args {
			if strings.HasPrefix(a, "-") || a == "" {
				continue
			}
			if strings.Contains(a, "/") {
				b.WriteString(a + "\n")
			} else {
				b.WriteString("/usr/bin/" + a + "\n")
			}
		}
		if name == "command" && !contains(args, "-v") {
			return "", false
		}
		return b.String(), b.Len() > 0
	case "tr":
		if in.known && len(args) == 2 && isRot13(args[0], args[1]) {
			return rot13(in.content), true
		}
	}
	return "", false
}

func decodeFlag(name string, args []string) bool {
	for _, a := range args {
		switch a {
		case "-d", "-D", "--decode", "-di", "-id":
			return true
		}
	}
	if name == "openssl" {
		return (contains(args, "base64") || contains(args, "-base64") || contains(args, "-a")) && contains(args, "-d")
	}
	return false
}

// decodeB64 accepts standard and URL alphabets, padded or not, with line
// breaks, as base64 -d -i would.
func decodeB64(s string) (string, bool) {
	s = strings.Join(strings.Fields(s), "")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return string(b), true
		}
	}
	return "", false
}

func isRot13(a, b string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "[", ""), "]", "") }
	a, b = norm(a), norm(b)
	return (a == "A-Za-z" && (b == "N-ZA-Mn-za-m")) || (a == "a-zA-Z" && b == "n-za-mN-ZA-M") || (a == "a-z" && b == "n-za-m")
}

func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// curlArgOpts are curl's short options that take a value.
const curlArgOpts = "AbcCdDeEFHKmoPQrtTuUwxXyYz"

// bareStemRe is what follows a tool's name in an archive's name: a
// version, "latest", a platform.
var bareStemRe = refilter.MustCompile(`(?i)[-_](v?[0-9][\w.]*|latest|stable|nightly|linux|darwin|macos|windows|win(32|64)?|amd64|x86_64|x64|arm64|aarch64)([-_.].*)?$`)

// archiveStem is an archive's name without its archive extensions, or
// "" when it has none.
func archiveStem(name string) string {
	for _, ext := range []string{".tar.gz", ".tar.xz", ".tar.bz2", ".tar.zst", ".tgz", ".txz", ".tbz2", ".tar", ".zip"} {
		if stem, ok := strings.CutSuffix(name, ext); ok && stem != "" {
			return stem
		}
	}
	return ""
}

// Downloaders fetch from the network.
var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true,
	"httpie": true, "xh": true, "curlie": true, "lwp-request": true, "GET": true, "wget2": true,
	// OpenWrt's and BusyBox's fetchers take wget's options.
	"uclient-fetch": true,
}

// IsDownloader reports whether name is a program that fetches URLs.
func IsDownloader(name string) bool { return downloaders[name] }

func isDownloader(c Command) bool {
	if downloaders[c.Name] {
		return true
	}
	// nc/ncat/socat reading from a host also deliver remote bytes.
	if c.Name == "nc" || c.Name == "ncat" || c.Name == "socat" || c.Name == "openssl" && contains(c.Args, "s_client") {
		return true
	}
	return false
}

// trackFiles records files the command writes or downloads: curl -o,
// wget, tee, cp/mv of a known file.
func (w *walker) trackFiles(c Command, in stdinInfo, cx ctx) {
	a := c.Args
	switch c.Name {
	case "curl", "curlie":
		for i := 0; i < len(a); i++ {
			x := a[i]
			switch {
			case (x == "--output" || strings.HasPrefix(x, "--output=")) && i+1 < len(a):
				out := strings.TrimPrefix(x, "--output=")
				if x == "--output" {
					out = a[i+1]
					i++
				}
				if out != "-" {
					w.st.Download(out, c.String())
				}
			case x == "--remote-name" || x == "--remote-name-all":
				if u := lastURL(a); u != "" {
					w.st.Download(urlBase(u), c.String())
				}
			case len(x) > 1 && x[0] == '-' && x[1] != '-':
				// A cluster of short options ("-sSLo FILE", "-fsSLO"): the
				// first one that takes a value consumes the rest of the
				// word or the next word.
				for k := 1; k < len(x); k++ {
					ch := x[k]
					if ch == 'O' {
						if u := lastURL(a); u != "" {
							w.st.Download(urlBase(u), c.String())
						}
						continue
					}
					if strings.IndexByte(curlArgOpts, ch) < 0 {
						continue
					}
					val := x[k+1:]
					if val == "" && i+1 < len(a) {
						val = a[i+1]
						i++
					}
					if ch == 'o' && val != "-" && val != "" {
						w.st.Download(val, c.String())
					}
					break
				}
			}
		}
	case "gh", "glab":
		// gh release download ... -O FILE: a release asset, downloaded.
		if len(a) > 2 && a[0] == "release" && a[1] == "download" {
			for i := 2; i+1 < len(a); i++ {
				if a[i] == "-O" || a[i] == "--output" {
					w.st.Download(a[i+1], c.String())
				}
			}
		}
	case "hdiutil":
		// A downloaded disk image attached: what it holds appears under
		// /Volumes, so running an installer from there is running the
		// download.
		if len(a) > 1 && a[0] == "attach" {
			for _, x := range a[1:] {
				if _, f := w.st.LookupFile(x); f != nil && f.Downloaded {
					w.st.DownloadDir("/Volumes", f.From)
				}
			}
		}
	case "unzip", "tar", "bsdtar", "7z", "7za":
		// An archive the session downloaded, unpacked into a directory
		// named for it (unzip -d DIR, tar -C DIR): what it holds is a
		// download too, so running a file from there later is
		// download-then-run. Unpacking into the working directory is
		// left alone: that would make every later ./script a download.
		if archive, dir, ok := unpackTarget(c.Name, a); ok && (dir == "" || dir == "." || dir == "./") && archive != "" && archive != "-" {
			// A downloaded tarball unpacked here: its top directory,
			// named after it by convention (kit-2.1.tar.gz holds kit-2.1/),
			// is the download's.
			// (One checked against its checksum or signature first holds
			// what its publisher signed: an install, as running it would
			// be.)
			if _, f := w.st.LookupFile(archive); f != nil && f.Downloaded && !f.Verified {
				if stem := archiveStem(path.Base(archive)); stem != "" {
					w.st.DownloadDir(stem, f.From)
					// tool-latest.tar.gz, tool-linux-amd64.tar.gz: the
					// top directory is often the bare name (tool/).
					if bare := bareStemRe.ReplaceAllString(stem, ""); bare != stem && bare != "" {
						w.st.DownloadDir(bare, f.From)
					}
				}
			}
		}
		if archive, dir, ok := unpackTarget(c.Name, a); ok && (dir == "" || dir == "." || dir == "./") && (archive == "" || archive == "-") && fromNetwork(in.sources) {
			// curl URL/tool-1.4.2.tar.gz | tar xz: the same, named after
			// the URL's file.
			for _, src := range in.sources {
				if u := lastURL(strings.Fields(src.Text)); u != "" {
					base := urlBase(u)
					if stem := archiveStem(base); stem != "" {
						w.st.DownloadDir(stem, src.Text)
						if genericStems[stem] {
							// .../pkg/latest.tar.gz usually holds pkg/.
							if parent := urlBase(strings.TrimSuffix(u, "/"+base)); parent != "" && parent != "index.html" {
								w.st.DownloadDir(parent, src.Text)
							}
						}
					}
				}
			}
		}
		if archive, dir, ok := unpackTarget(c.Name, a); ok && dir != "" && dir != "." && dir != "./" {
			from := ""
			if archive == "-" || archive == "" {
				if fromNetwork(in.sources) {
					from = c.String()
				}
			} else if _, f := w.st.LookupFile(archive); f != nil && f.Downloaded && !f.Verified {
				from = f.From
			}
			if from != "" {
				w.st.DownloadDir(dir, from)
			}
		}
	case "fetch":
		// FreeBSD's fetch: "-o FILE" (also in a cluster, "-qo FILE"),
		// else the URL's last element; "-o -" is standard output.
		out := ""
		for i := 0; i < len(a); i++ {
			x := a[i]
			if len(x) < 2 || x[0] != '-' || x[1] == '-' {
				if v, ok := strings.CutPrefix(x, "--output="); ok {
					out = v
				}
				continue
			}
			if k := strings.IndexByte(x, 'o'); k > 0 && strings.IndexAny(x[1:k], "iNSTB") < 0 {
				if k < len(x)-1 {
					out = x[k+1:]
				} else if i+1 < len(a) {
					out = a[i+1]
					i++
				}
			}
		}
		if out == "" {
			if u := lastURL(a); u != "" {
				out = urlBase(u)
			}
		}
		if out != "" && out != "-" {
			w.st.Download(out, c.String())
		}
	case "aria2c":
		out, dir := "", ""
		for i := 0; i < len(a); i++ {
			if v, n, ok := optArg(a, i, "-o", "--out"); ok {
				out, i = v, i+n
			} else if v, n, ok := optArg(a, i, "-d", "--dir"); ok {
				dir, i = v, i+n
			}
		}
		if out == "" {
			if u := lastURL(a); u != "" {
				out = urlBase(u)
			}
		}
		if out != "" {
			if dir != "" {
				out = dir + "/" + out
			}
			w.st.Download(out, c.String())
		}
	case "openssl", "age", "gunzip", "unxz", "bunzip2", "unzstd", "xz", "gzip", "zstd", "bzip2":
		// What a decrypter or decompressor makes of a download is the
		// download: "openssl enc -d -in p.enc -out p.sh", "age -d -o p.sh
		// p.age", "gunzip p.gz" (in place, to p).
		if !w.readsDownload(a) {
			break
		}
		for i := 0; i+1 < len(a); i++ {
			if a[i] == "-out" || a[i] == "-o" || a[i] == "--output" {
				w.st.Download(a[i+1], c.String())
				return
			}
		}
		if c.Name != "openssl" && c.Name != "age" && !contains(a, "-c") && !contains(a, "--stdout") {
			for _, x := range a {
				for _, ext := range []string{".gz", ".xz", ".bz2", ".zst", ".tgz"} {
					if strings.HasSuffix(x, ext) && !strings.HasPrefix(x, "-") {
						w.st.Download(strings.TrimSuffix(x, ext)+map[bool]string{true: ".tar"}[ext == ".tgz"], c.String())
					}
				}
			}
		}
	case "certutil", "certutil.exe":
		// certutil -urlcache [-split] -f URL OUT: Windows' downloader.
		var ops []string
		fetch := false
		for _, x := range a {
			if lx := strings.ToLower(x); lx == "-urlcache" || lx == "/urlcache" {
				fetch = true
			} else if !strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "/") || strings.Contains(x, "://") {
				ops = append(ops, x)
			}
		}
		if fetch && len(ops) >= 2 && strings.Contains(ops[0], "://") {
			w.st.Download(ops[1], c.String())
		}
	case "wget", "wget2", "uclient-fetch":
		out := ""
		explicit := false
		for i := 0; i < len(a); i++ {
			x := a[i]
			switch {
			case (x == "-O" || x == "--output-document") && i+1 < len(a):
				out, explicit = a[i+1], true
				i++
			case strings.HasPrefix(x, "--output-document="):
				out, explicit = strings.TrimPrefix(x, "--output-document="), true
			case strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && strings.Contains(x, "O"):
				j := strings.Index(x, "O")
				if j < len(x)-1 {
					out, explicit = x[j+1:], true
				} else if i+1 < len(a) {
					out, explicit = a[i+1], true
					i++
				}
			}
		}
		if !explicit {
			if u := lastURL(a); u != "" {
				out = urlBase(u)
			}
		}
		if out != "" && out != "-" {
			w.st.Download(out, c.String())
		}
	case "sha256sum", "sha512sum", "shasum", "gsha256sum", "gpg", "gpg2", "cosign", "minisign", "sigstore", "slsa-verifier",
		"pkgutil", "spctl", "codesign", "rpm", "rpmkeys", "dpkg-sig", "debsig-verify":
		// A checksum or signature check naming a download: it was
		// verified before it was run. (macOS: pkgutil --check-signature,
		// spctl --assess, codesign --verify; rpm -K; dpkg-sig --verify.)
		check := contains(a, "-c") || contains(a, "--check") || contains(a, "--verify") || contains(a, "-V") ||
			// minisign -Vm FILE -P KEY: -V in a cluster.
			c.Name == "minisign" && slices.ContainsFunc(a, func(x string) bool {
				return strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && strings.Contains(x, "V")
			}) ||
			len(a) > 0 && (a[0] == "verify-blob" || a[0] == "verify" || a[0] == "verify-artifact")
		switch c.Name {
		case "pkgutil":
			check = contains(a, "--check-signature")
		case "spctl":
			check = contains(a, "-a") || contains(a, "--assess") || slices.ContainsFunc(a, func(x string) bool { return strings.HasPrefix(x, "-a") && !strings.HasPrefix(x, "--") })
		case "codesign":
			check = contains(a, "-v") || contains(a, "--verify") || contains(a, "-vv") || contains(a, "-dv")
		case "rpm", "rpmkeys":
			check = contains(a, "-K") || contains(a, "--checksig")
		case "debsig-verify":
			check = true
		}
		if !check {
			break
		}
		text := strings.Join(a, " ") + " " + in.content
		for _, src := range in.sources {
			text += " " + src.Text
		}
		for key, f := range w.st.Files {
			if f.Downloaded && (strings.Contains(text, key) || strings.Contains(text, path.Base(key))) {
				f.Verified = true
			}
		}
	case "sed", "gsed":
		// sed -i 's|^DATABASE_URL=.*|DATABASE_URL=postgres://prod/..|' .env:
		// the selector the file now holds, as if it had been written.
		if !slices.ContainsFunc(a, func(x string) bool { return x == "-i" || strings.HasPrefix(x, "-i") || x == "--in-place" }) {
			break
		}
		for _, x := range a {
			if b := path.Base(CleanPath(x)); strings.HasPrefix(b, ".env") {
				for _, e := range a {
					if name, val, ok := sedSet(e); ok && isSelector(name) {
						if w.st.FileEnv == nil {
							w.st.FileEnv = map[string]string{}
						}
						w.st.FileEnv[name] = val
					}
				}
			}
		}
	case "tee":
		for _, x := range a {
			if strings.HasPrefix(x, "-") {
				continue
			}
			if in.known {
				w.st.WriteFile(x, in.content, contains(a, "-a"), c.String())
				w.scheduledWrite(x, in.content, cx)
			} else if fromNetwork(in.sources) {
				w.st.Download(x, c.String())
			}
			for _, src := range in.sources {
				// "gh auth token | tee t": t holds the secret, as with ">".
				if o := secretSource(strings.Fields(src.Text)); o != "" {
					w.st.setOrigin(x, o)
				}
			}
		}
	case "scp", "rsync":
		// Copied from another host: the local copy holds what that host
		// served, a download ("scp ops@h:/srv/p.sh /tmp/p.sh").
		var ops []string
		for _, x := range a {
			if !strings.HasPrefix(x, "-") {
				ops = append(ops, x)
			}
		}
		if n := len(ops); n >= 2 && !strings.Contains(ops[n-1], ":") {
			for _, src := range ops[:n-1] {
				if h, _, ok := strings.Cut(src, ":"); ok && h != "" && !strings.Contains(h, "/") {
					dst := ops[n-1]
					if strings.HasSuffix(dst, "/") || dst == "." {
						dst = path.Join(dst, path.Base(src))
					}
					w.st.Download(dst, c.String())
				}
			}
		}
	case "cp", "mv", "install", "ln":
		var ops []string
		target := ""
		for i := 0; i < len(a); i++ {
			x := a[i]
			if v, n, ok := optArg(a, i, "-t", "--target-directory"); ok {
				target, i = v, i+n
				continue
			}
			switch {
			case c.Name == "install" && (x == "-m" || x == "-o" || x == "-g" || x == "-S" || x == "--mode" || x == "--owner" || x == "--group" || x == "--suffix") && i+1 < len(a):
				i++ // install -m 644 SRC DST: 644 is the mode
			case !strings.HasPrefix(x, "-"):
				ops = append(ops, x)
			}
		}
		if target != "" && len(ops) == 1 {
			ops = append(ops, strings.TrimRight(target, "/")+"/")
		}
		if len(ops) == 2 {
			dst := ops[1]
			if strings.HasSuffix(dst, "/") || dst == "." {
				dst = path.Join(dst, path.Base(ops[0]))
			}
			if _, f := w.st.LookupFile(ops[0]); f != nil {
				nf := *f
				w.st.Files[CleanPath(dst)] = &nf
				w.st.origin["file:"+CleanPath(dst)] = w.st.gen
			} else {
				// A file from outside the session's own writes: later
				// reads of dst read it.
				src := ops[0]
				if o, _ := w.st.originOf(src); o != "" {
					src = o
				}
				w.st.setOrigin(dst, src)
				// Named also by its full path when the directory is known
				// ("cd /tmp && ln -s ~/.netrc n", then "cat /tmp/n").
				full := ""
				if cwd := w.st.Cwd; (strings.HasPrefix(cwd, "/") || strings.HasPrefix(cwd, "~")) && !strings.HasPrefix(dst, "/") && !strings.HasPrefix(dst, "~") && !Unknown(dst) {
					full = path.Join(cwd, dst)
					w.st.setOrigin(full, src)
				}
				if c.Name == "ln" || c.Name == "mv" {
					// A link or the moved original: deleting through it
					// deletes the original ("ln -s ~ build", then "rm -rf
					// build/*"); a copy is only a copy.
					w.st.setLink(dst, src)
					if full != "" {
						w.st.setLink(full, src)
					}
				}
			}
		}
	}
}

func fromNetwork(srcs []Source) bool {
	for _, s := range srcs {
		if downloaders[s.Name] || s.Kind == "download" {
			return true
		}
	}
	return false
}

func lastURL(a []string) string {
	for i := len(a) - 1; i >= 0; i-- {
		if strings.Contains(a[i], "://") || strings.HasPrefix(a[i], "www.") {
			return a[i]
		}
	}
	return ""
}

func urlBase(u string) string {
	if p, err := url.Parse(u); err == nil && p.Path != "" && p.Path != "/" {
		return path.Base(p.Path)
	}
	return "index.html"
}

// findPathTail reads a -path (-ipath, -wholename) test at args[i] whose
// pattern starts with "*" ("*serviceaccount/token", "*/.ssh/id_*"): what
// it selects is that tail anywhere below the root. A negated test selects
// nothing.
func findPathTail(args []string, i int) (string, bool) {
	switch args[i] {
	case "-path", "-ipath", "-wholename", "-iwholename":
	default:
		return "", false
	}
	if i+1 >= len(args) || i > 0 && (args[i-1] == "!" || args[i-1] == "-not") {
		return "", false
	}
	p := args[i+1]
	if !strings.HasPrefix(p, "*") {
		return "", false
	}
	p = strings.TrimLeft(p, "*/")
	return p, p != "" && p != "*"
}

// findItem is the shape of what find prints or passes to -exec: ROOT/NAME
// for a name found directly under the root, ROOT/**/NAME when the name
// may be anywhere below it ("find / -name '*.pem'" reaches
// ~/.ssh/deploy.pem).
func findItem(root, name string, args []string) string {
	r := strings.TrimRight(root, "/")
	if name == "" {
		name = "*"
	}
	shallow := name == "*"
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-maxdepth" && (args[i+1] == "0" || args[i+1] == "1") {
			shallow = true
		}
	}
	if shallow {
		return r + "/" + name
	}
	return r + "/**/" + name
}

// passThrough programs copy their input to their output, so what they
// write to a file is what fed them.
var passThrough = map[string]bool{
	"cat": true, "tee": true, "dd": true, "gunzip": true, "zcat": true, "base64": true, "tr": true, "sed": true,
	"awk": true, "gzip": true, "xz": true, "bzip2": true, "head": true, "tail": true, "openssl": true,
	// Archive tools extracting to standard output (unzip -p, tar -xO).
	"unzip": true, "funzip": true, "tar": true, "bsdtar": true, "xzcat": true, "bzcat": true, "zstdcat": true, "unxz": true, "bunzip2": true,
}

// genericStems are archive names that say nothing of what they hold
// (latest.tar.gz): the directory inside is named like the URL's parent.
var genericStems = map[string]bool{"latest": true, "current": true, "stable": true, "release": true, "main": true, "master": true, "download": true}

// toolCacheDirs are the default answers of tools asked where their caches
// and module stores live.
var toolCacheDirs = map[string]string{
	"go env GOCACHE":                     "~/.cache/go-build",
	"npm config get userconfig":          "~/.npmrc",
	"go env GOMODCACHE":                  "~/go/pkg/mod",
	"npm config get cache":               "~/.npm",
	"yarn cache dir":                     "~/.cache/yarn",
	"pip cache dir":                      "~/.cache/pip",
	"pip3 cache dir":                     "~/.cache/pip",
	"brew --cache":                       "~/Library/Caches/Homebrew",
	"pnpm store path":                    "~/.local/share/pnpm/store",
	"composer config cache-dir":          "~/.cache/composer",
	"composer config --global cache-dir": "~/.cache/composer",
	"poetry config cache-dir":            "~/.cache/pypoetry",
	"uv cache dir":                       "~/.cache/uv",
	"yarn config get cacheFolder":        "~/.yarn/berry/cache",
	// biber prints the folder its PAR-packed binary unpacked into.
	"biber --cache": "/tmp/par-biber/cache-biber",
	// Bazel's output base and caches live under its output user root
	// (~/.cache/bazel/_bazel_USER/HASH on Linux).
	"bazel info output_base":         "~/.cache/bazel/_bazel_user/output_base",
	"bazel info output_path":         "~/.cache/bazel/_bazel_user/output_base/execroot/_main/bazel-out",
	"bazel info execution_root":      "~/.cache/bazel/_bazel_user/output_base/execroot/_main",
	"bazel info repository_cache":    "~/.cache/bazel/_bazel_user/cache/repos/v1",
	"bazel info output_user_root":    "~/.cache/bazel/_bazel_user",
	"bazelisk info output_base":      "~/.cache/bazel/_bazel_user/output_base",
	"bazelisk info repository_cache": "~/.cache/bazel/_bazel_user/cache/repos/v1",
}

// unpackTarget reads an extraction command: the archive ("-" or "" for
// standard input) and the directory it unpacks into ("" when none is
// named). ok is false when the command does not extract.
func unpackTarget(name string, a []string) (archive, dir string, ok bool) {
	switch name {
	case "unzip":
		for i := 0; i < len(a); i++ {
			switch x := a[i]; {
			case x == "-d" && i+1 < len(a):
				dir = a[i+1]
				i++
			case strings.HasPrefix(x, "-"):
			case archive == "":
				archive = x
			}
		}
		return archive, dir, archive != ""
	case "7z", "7za":
		if len(a) == 0 || a[0] != "x" && a[0] != "e" {
			return "", "", false
		}
		for _, x := range a[1:] {
			switch {
			case strings.HasPrefix(x, "-o"):
				dir = x[2:]
			case strings.HasPrefix(x, "-"):
			case archive == "":
				archive = x
			}
		}
		return archive, dir, archive != ""
	}
	extract := false
	for i := 0; i < len(a); i++ {
		x := a[i]
		if v, n, ok := optArg(a, i, "-C", "--directory"); ok {
			dir, i = v, i+n
			continue
		}
		if v, n, ok := optArg(a, i, "-f", "--file"); ok {
			archive, i = v, i+n
			continue
		}
		switch {
		case x == "-x" || x == "--extract" || x == "--get":
			extract = true
		case strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") || i == 0 && !strings.HasPrefix(x, "-"):
			// Bundled short options, with or without the dash: "-xzf
			// FILE", "xzf FILE".
			flags := strings.TrimPrefix(x, "-")
			if i == 0 && !strings.ContainsAny(flags, "xtc") {
				continue
			}
			if strings.Contains(flags, "x") {
				extract = true
			}
			if strings.HasSuffix(flags, "f") && i+1 < len(a) {
				archive = a[i+1]
				i++
			}
		}
	}
	if !extract {
		return "", "", false
	}
	if archive == "" {
		archive = "-"
	}
	return archive, dir, true
}

// optArg reads an option that takes a value at a[i]: "SHORT VALUE",
// "LONG VALUE" or "LONG=VALUE". n is how many further words it used.
func optArg(a []string, i int, short, long string) (val string, n int, ok bool) {
	x := a[i]
	switch {
	case (x == short || x == long) && i+1 < len(a):
		return a[i+1], 1, true
	case strings.HasPrefix(x, long+"="):
		return x[len(long)+1:], 0, true
	}
	return "", 0, false
}

// sedSet reads a sed substitution that sets NAME=VALUE on the NAME=
// line ("s|^DATABASE_URL=.*|DATABASE_URL=postgres://...|").
func sedSet(e string) (name, val string, ok bool) {
	if len(e) < 4 || e[0] != 's' {
		return "", "", false
	}
	parts := strings.Split(e[2:], e[1:2])
	if len(parts) < 3 {
		return "", "", false
	}
	n1, _, ok1 := strings.Cut(strings.TrimPrefix(parts[0], "^"), "=")
	n2, v, ok2 := strings.Cut(parts[1], "=")
	if !ok1 || !ok2 || n1 != n2 || n1 == "" {
		return "", "", false
	}
	return n1, v, true
}

var echoOctalRe = refilter.MustCompile(`\\0[0-7]{1,3}`)

// echoOctal replaces echo -e's and %b's octal escapes (\0NNN) with the
// bytes they stand for.
func echoOctal(s string) string {
	if !strings.Contains(s, `\0`) {
		return s
	}
	return echoOctalRe.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.ParseUint(m[2:], 8, 8)
		return string(rune(n))
	})
}

// maxGunzip bounds what a decompressed payload is read for.
const maxGunzip = 64 << 10

// fileInput is the content of the one operand of a filter reading a file
// the session wrote ("base64 -d /tmp/enc.txt"), as if it were stdin.
func fileInput(args []string, st *State) (stdinInfo, bool) {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	if len(files) != 1 {
		return stdinInfo{}, false
	}
	_, f := st.LookupFile(files[0])
	if f == nil || f.Downloaded {
		return stdinInfo{}, false
	}
	return stdinInfo{content: f.Content, known: true}, true
}

// awkBeginRe is an awk program made of a BEGIN block only.
var awkBeginRe = refilter.MustCompile(`(?s)^\s*BEGIN\s*\{(.*)\}\s*$`)

// awkPrintRe is one print or printf statement with a literal format and
// literal or numeric arguments.
var awkPrintRe = refilter.MustCompile(`^\s*(printf|print)\s*\(?\s*"((?:[^"\\]|\\.)*)"((?:\s*,\s*(?:[0-9]+|"(?:[^"\\]|\\.)*"))*)\s*\)?\s*$`)

// awkBeginOut computes what a BEGIN-only awk program of literal print and
// printf statements writes (%c of a number is that character).
func awkBeginOut(prog string) (string, bool) {
	m := awkBeginRe.FindStringSubmatch(prog)
	if m == nil {
		return "", false
	}
	var b strings.Builder
	for _, stmt := range strings.Split(m[1], ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		pm := awkPrintRe.FindStringSubmatch(stmt)
		if pm == nil {
			return "", false
		}
		var vals []string
		for _, a := range strings.Split(pm[3], ",")[1:] {
			vals = append(vals, strings.TrimSpace(a))
		}
		text := unescape(pm[2])
		if pm[1] == "print" {
			b.WriteString(text + "\n")
			continue
		}
		k := 0
		for i := 0; i < len(text); i++ {
			if text[i] != '%' || i+1 == len(text) {
				b.WriteByte(text[i])
				continue
			}
			i++
			if text[i] == '%' {
				b.WriteByte('%')
				continue
			}
			if k >= len(vals) {
				return "", false
			}
			v := vals[k]
			k++
			switch text[i] {
			case 'c':
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 127 {
					return "", false
				}
				b.WriteByte(byte(n))
			case 's', 'd':
				b.WriteString(strings.Trim(v, `"`))
			default:
				return "", false
			}
		}
	}
	return b.String(), true
}
