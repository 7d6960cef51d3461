package shell

import (
	"slices"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Windows commands (PowerShell cmdlets and cmd.exe builtins) are read
// from their source text, not through bash expansion, which would eat the
// backslashes of C:\Users\x. Their meaning is mapped onto the POSIX
// programs the rules know: Remove-Item -Recurse is rm -r, Get-Content is
// cat, Format-Volume wipes a disk.

// psOnly are PowerShell names with no POSIX namesake.
var psOnly = map[string]bool{
	"remove-item": true, "ri": true, "get-content": true, "gc": true, "format-volume": true, "clear-disk": true,
	"initialize-disk": true, "add-content": true, "set-content": true,
	"get-childitem": true, "gci": true, "invoke-webrequest": true, "iwr": true, "start-process": true, "saps": true, "bitsadmin": true, "bitsadmin.exe": true,
	"certutil": true, "certutil.exe": true, "robocopy": true, "robocopy.exe": true,
	"where-object": true, "?": true, "msiexec": true, "msiexec.exe": true, "invoke-restmethod": true, "irm": true,
	"start-bitstransfer": true, "write-output": true, "write-host": true, "set-itemproperty": true, "new-itemproperty": true,
	"compress-archive": true, "sdelete": true, "sdelete.exe": true, "sdelete64": true, "sdelete64.exe": true,
	"wmic": true, "wmic.exe": true, "invoke-cimmethod": true, "invoke-wmimethod": true, "runas": true, "runas.exe": true,
	"psexec": true, "psexec.exe": true, "psexec64": true, "psexec64.exe": true, "gsudo": true, "forfiles": true, "forfiles.exe": true,
	"select-string": true, "sls": true, "findstr": true, "findstr.exe": true, "expand-archive": true,
	"copy": true, "xcopy": true, "xcopy.exe": true,
}

// winDirs are the per-user directories Windows names by variable.
var winDirs = map[string]string{
	"$env:localappdata": "~/AppData/Local", "%localappdata%": "~/AppData/Local",
	"$env:appdata": "~/AppData/Roaming", "%appdata%": "~/AppData/Roaming",
	"$env:temp": "/tmp", "%temp%": "/tmp", "$env:tmp": "/tmp", "%tmp%": "/tmp",
	// The system's own directories.
	"%systemroot%": "/Windows", "%windir%": "/Windows", "$env:systemroot": "/Windows", "$env:windir": "/Windows",
	"%programfiles%": "/Program Files", "$env:programfiles": "/Program Files", "%programdata%": "/ProgramData", "$env:programdata": "/ProgramData",
}

// winRmRe is an rm line written for PowerShell: a -Force or -Recurse
// switch spelled its way, or an argument that is a drive path.
var winRmRe = refilter.MustCompile(`(?i)^\s*rm\s.*(\s-(fo|for|forc|force|recurse|recurs|recur|rec|literalpath|path)\b|\s['"]?[a-z]:\\|\s['"]?\\\\\?\\)`)

// cmdAmbiguous are cmd.exe names that also exist (or mean little) in a
// POSIX shell; they count as Windows only with Windows-looking arguments.
var cmdAmbiguous = map[string]bool{
	"rd": true, "rmdir": true, "del": true, "erase": true, "type": true, "format": true, "start": true,
}

// winCommand returns the normalised argv of a Windows command given the
// statement's source text, or false when the statement is not one.
// inline, when not nil, computes PowerShell variables and expressions in
// the text once it is known to be a Windows command.
func winCommand(text string, fields []string, inline func(string) (string, bool)) ([]string, string, bool) {
	if len(fields) == 0 || Unknown(fields[0]) {
		return nil, text, false
	}
	prog := fields[0]
	if (prog == "sudo" || prog == "gsudo") && len(fields) > 1 && (psOnly[strings.ToLower(fields[1])] || cmdAmbiguous[strings.ToLower(fields[1])]) {
		// "sudo rd /s /q C:\Windows": the elevated command is read
		// from the text, past the elevation.
		prog, fields = strings.ToLower(fields[1]), fields[1:]
	}
	if m := winExeRe.FindString(text); m != "" {
		// "C:\\Users\\Public\\svc.exe", ".\\tool.exe": a program run by
		// its Windows path (the POSIX parse lost the backslashes).
		if words := winSplit(text); len(words) > 0 {
			return append([]string{winPath(words[0])}, words[1:]...), text, true
		}
	}
	aliasRm := false
	if prog == "rm" && winRmRe.MatchString(text) {
		// PowerShell's rm alias of Remove-Item, known by its switches
		// (-fo, -Recurse) or a drive path: "rm -r -fo C:\Windows".
		prog, aliasRm = "remove-item", true
	}
	if !psOnly[prog] && !cmdAmbiguous[prog] {
		// Cheap test first: most programs are not Windows ones.
		if prog = strings.ToLower(prog); prog == fields[0] || !psOnly[prog] && !cmdAmbiguous[prog] {
			return nil, text, false
		}
	}
	if inline != nil && strings.ContainsAny(text, "$([") {
		if t, ok := inline(text); ok {
			text = t
		}
	}
	words := winSplit(text)
	for len(words) > 1 && (strings.EqualFold(words[0], "sudo") || strings.EqualFold(words[0], "gsudo")) && prog != "gsudo" {
		// Windows 11's sudo and gsudo run the rest elevated.
		words = words[1:]
	}
	if len(words) == 0 || strings.ToLower(strings.Trim(words[0], `"'`)) != prog && !(aliasRm && words[0] == "rm") {
		return nil, text, false
	}
	if inner, ok := winLaunched(prog, words); ok {
		return []string{"sh", "-c", winProcLine(inner)}, text, true
	}
	if !psOnly[prog] {
		win := false
		for _, w := range words[1:] {
			if strings.Contains(w, `\`) || strings.Contains(w, "%") || strings.HasPrefix(strings.ToLower(w), "$env:") ||
				len(w) == 2 && w[0] == '/' || len(w) >= 2 && w[1] == ':' {
				win = true
			}
		}
		if !win {
			return nil, text, false
		}
	}
	var paths []string
	value, hasValue := "", false
	recursive, force := false, false
	valueParams := map[string]bool{"-erroraction": true, "-ea": true, "-include": true, "-exclude": true, "-filter": true,
		"-totalcount": true, "-tail": true, "-head": true, "-encoding": true, "-delimiter": true, "-readcount": true, "-filesystem": true,
		"-filesystemlabel": true, "-newfilesystemlabel": true, "-stream": true, "-credential": true}
	for i := 1; i < len(words); i++ {
		w := strings.Trim(words[i], `"'`)
		lw := strings.ToLower(w)
		switch {
		case lw == "-path" || lw == "-literalpath" || lw == "-lp":
			if i+1 < len(words) {
				paths = append(paths, winPaths(words[i+1])...)
				i++
			}
		case lw == "-value" || lw == "-val":
			if i+1 < len(words) {
				value, hasValue = strings.Trim(words[i+1], `"'`), true
				i++
			}
		case lw == "-driveletter" || lw == "-number":
			if i+1 < len(words) {
				paths = append(paths, "/dev/windows-volume-"+strings.Trim(words[i+1], `"'`))
				i++
			}
		case valueParams[lw]:
			i++
		case strings.HasPrefix(lw, "-r") && strings.HasPrefix("-recurse", lw), lw == "/s":
			recursive = true
		case strings.HasPrefix(lw, "-fo") && strings.HasPrefix("-force", lw), lw == "-f", lw == "/q", lw == "/f":
			force = true
		case strings.HasPrefix(lw, "-") || len(lw) == 2 && lw[0] == '/':
		default:
			paths = append(paths, winPaths(words[i])...)
		}
	}
	switch prog {
	case "compress-archive":
		// Compress-Archive -Path SRC -DestinationPath ZIP: zip reading SRC.
		var src []string
		dst := ""
		for i := 0; i+1 < len(words); i++ {
			switch strings.ToLower(words[i]) {
			case "-path", "-literalpath":
				src = append(src, winPath(words[i+1]))
			case "-destinationpath":
				dst = winPath(words[i+1])
			}
		}
		if dst == "" {
			return nil, text, false
		}
		// With no -Path, what a listing pipes in (added by the caller).
		return append([]string{"zip", "-r", dst}, src...), text, true
	case "remove-item", "ri", "rd", "rmdir", "del", "erase":
		if slices.ContainsFunc(words[1:], func(w string) bool { return strings.EqualFold(w, "-WhatIf") }) {
			// -WhatIf only says what would be removed.
			return append([]string{"ls"}, paths...), text, true
		}
		argv := []string{"rm"}
		if recursive {
			argv = append(argv, "-r")
		}
		if force || prog == "rd" || prog == "rmdir" {
			argv = append(argv, "-f")
		}
		return append(argv, paths...), text, true
	case "sdelete", "sdelete.exe", "sdelete64", "sdelete64.exe":
		// Sysinternals SDelete overwrites files (with -s, whole trees) or
		// a disk's free space: shred on Windows.
		var targets []string
		for i := 1; i < len(words); i++ {
			switch lw := strings.ToLower(words[i]); {
			case lw == "-p" || lw == "/p":
				i++ // the pass count
			case strings.HasPrefix(lw, "-") || strings.HasPrefix(lw, "/") && len(lw) == 2:
			default:
				targets = append(targets, winPath(words[i]))
			}
		}
		return append([]string{"shred", "-u"}, targets...), text, true
	case "get-content", "gc", "type":
		return append([]string{"cat"}, paths...), text, true
	case "findstr", "findstr.exe":
		// findstr [/opts] PATTERN FILES...: the files as paths, the
		// pattern (absent with /c: or /g:) as written.
		argv := []string{"findstr"}
		pattern := true
		for _, w := range words[1:] {
			lw := strings.ToLower(strings.Trim(w, `"'`))
			switch {
			case strings.HasPrefix(lw, "/c:") || strings.HasPrefix(lw, "/g:"):
				pattern = false
				argv = append(argv, strings.Trim(w, `"'`))
			case strings.HasPrefix(lw, "/") && !strings.Contains(lw[1:], "/") && !strings.Contains(lw, `\`):
				argv = append(argv, strings.Trim(w, `"'`))
			case pattern:
				pattern = false
				argv = append(argv, strings.Trim(w, `"'`))
			default:
				argv = append(argv, winPath(w))
			}
		}
		return argv, text, true
	case "certutil", "certutil.exe":
		// certutil -urlcache -f URL FILE downloads; -decode IN OUT
		// writes IN's base64 content decoded.
		for i, w := range words {
			switch lw := strings.ToLower(w); {
			case strings.Contains(w, "://") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-"):
				return []string{"curl", "-o", winPath(words[i+1]), strings.Trim(w, `"'`)}, text, true
			case (lw == "-decode" || lw == "-decodehex") && i+2 < len(words):
				return []string{"sh", "-c", "base64 -d " + quote(winPath(words[i+1])) + " > " + quote(winPath(words[i+2]))}, text, true
			}
		}
	case "robocopy", "robocopy.exe":
		// robocopy SRC DST /MIR (or /PURGE) deletes from DST whatever
		// SRC lacks: rsync --delete.
		// With /L it only lists what it would do: rsync's --dry-run.
		mirror, list := false, false
		for _, w := range words[1:] {
			switch lw := strings.ToLower(w); lw {
			case "/mir", "/purge":
				mirror = true
			case "/l":
				list = true
			}
		}
		if mirror && len(paths) >= 2 {
			argv := []string{"rsync", "-a", "--delete"}
			if list {
				argv = append(argv, "--dry-run")
			}
			return append(argv, paths[0]+"/", paths[1]+"/"), text, true
		}
	case "where-object", "?":
		// Where-Object Name -match 'TOKEN|KEY': a filter on names, as
		// grep is on NAME=value lines.
		for i, w := range words {
			if lw := strings.ToLower(w); (lw == "-match" || lw == "-like" || lw == "-imatch" || lw == "-eq") && i+1 < len(words) {
				pat := strings.Trim(words[i+1], `"'`)
				if lw == "-like" || lw == "-eq" {
					pat = strings.ReplaceAll(pat, "*", ".*")
				}
				return []string{"grep", "-iE", pat}, text, true
			}
		}
	case "get-childitem", "gci":
		if len(paths) == 1 && strings.EqualFold(strings.TrimRight(paths[0], "/"), "env:") {
			// Get-ChildItem env: lists every variable with its value.
			return []string{"printenv"}, text, true
		}
		// A listing: what a Remove-Item it is piped into removes. With
		// -Include or -Filter, only the names it selects, at any depth
		// when -Recurse.
		if inc := psIncludes(words); len(inc) > 0 {
			root := "."
			if len(paths) > 0 {
				root = paths[0]
			}
			sep := "/"
			if recursive {
				sep = "/**/"
			}
			argv := []string{"ls"}
			for _, n := range inc {
				argv = append(argv, root+sep+n)
			}
			return argv, text, true
		}
		return append([]string{"ls"}, paths...), text, true
	case "msiexec", "msiexec.exe":
		// msiexec /i URL: a package fetched and installed (its custom
		// actions run) in one step; /i FILE runs what FILE holds.
		if u := psURL(words); u != "" {
			return []string{"sh", "-c", "curl -fsSL " + quote(u) + " | sh"}, text, true
		}
		for i, w := range words {
			if lw := strings.ToLower(w); (lw == "/i" || lw == "/package" || lw == "-i") && i+1 < len(words) {
				return []string{winPath(words[i+1])}, text, true
			}
		}
	case "start":
		// cmd's start ["TITLE"] PROGRAM: runs PROGRAM.
		for _, w := range words[1:] {
			if t := strings.Trim(w, `"'`); t != "" && !strings.HasPrefix(t, "/") {
				return []string{winPath(t)}, text, true
			}
		}
	case "start-bitstransfer":
		// Start-BitsTransfer -Source URL -Destination F: a download.
		src, dst := "", ""
		for i, w := range words {
			switch lw := strings.ToLower(w); {
			case lw == "-source" && i+1 < len(words):
				src = strings.Trim(words[i+1], `"'`)
			case lw == "-destination" && i+1 < len(words):
				dst = words[i+1]
			}
		}
		if src != "" && dst != "" {
			return []string{"curl", "-o", winPath(dst), src}, text, true
		}
	case "write-output", "write-host":
		// The text as echo prints it, through a POSIX reading so that
		// $env:NAME stands for the variable NAME.
		return []string{"sh", "-c", "echo " + psEnvRe.ReplaceAllString(strings.Join(words[1:], " "), "$$")}, text, true
	case "set-itemproperty", "new-itemproperty":
		// Kept as it is; the rules read its (variables resolved) text.
		return append([]string{words[0]}, words[1:]...), text, true
	case "invoke-webrequest", "iwr", "invoke-restmethod", "irm":
		// -InFile F sends the file, as "curl --data-binary @F URL".
		for i, w := range words {
			if strings.EqualFold(w, "-infile") && i+1 < len(words) {
				if u := psURL(words); u != "" {
					return []string{"curl", "--data-binary", "@" + winPath(words[i+1]), u}, text, true
				}
			}
		}
		// -Method Post with no -Body sends what is piped in ("... |
		// ConvertTo-Json | irm -Method Post URL"), as curl --data-binary @-.
		send, body := false, false
		for i, w := range words {
			switch lw := strings.ToLower(w); {
			case lw == "-method" && i+1 < len(words):
				m := strings.ToLower(strings.Trim(words[i+1], `"'`))
				send = m == "post" || m == "put" || m == "patch"
			case lw == "-body" || lw == "-form":
				body = true
			}
		}
		if u := psURL(words); send && !body && u != "" {
			return []string{"curl", "--data-binary", "@-", u}, text, true
		}
		for i, w := range words {
			if strings.EqualFold(w, "-method") && i+1 < len(words) && strings.EqualFold(strings.Trim(words[i+1], `"'`), "delete") {
				// -Method Delete URL: curl -X DELETE URL.
				if u := psURL(words); u != "" {
					return []string{"curl", "-X", "DELETE", u}, text, true
				}
			}
		}
		if prog == "invoke-restmethod" || prog == "irm" {
			break
		}
		// iwr URL -OutFile F: a download, as "curl -o F URL".
		if out, url := psOutFile(words), psURL(words); out != "" && url != "" {
			return []string{"curl", "-o", winPath(out), url}, text, true
		}
	case "copy", "xcopy", "xcopy.exe":
		// cmd's copy / xcopy SRC DST: cp, what it reads being SRC.
		argv := []string{"cp"}
		if slices.ContainsFunc(words[1:], func(w string) bool { l := strings.ToLower(w); return l == "/s" || l == "/e" }) {
			argv = append(argv, "-r")
		}
		if len(paths) > 0 {
			return append(argv, paths...), text, true
		}
	case "expand-archive":
		// Expand-Archive ZIP -DestinationPath DIR: unzip, so that what
		// a downloaded archive holds is known as a download.
		src, dst := "", ""
		for i := 1; i < len(words); i++ {
			switch lw := strings.ToLower(words[i]); {
			case (lw == "-destinationpath" || lw == "-destination") && i+1 < len(words):
				i++
				dst = winPath(words[i])
			case (lw == "-path" || lw == "-literalpath") && i+1 < len(words):
				i++
				src = winPath(words[i])
			case strings.HasPrefix(lw, "-"):
			case src == "":
				src = winPath(words[i])
			}
		}
		if src != "" {
			argv := []string{"unzip", "-o", src}
			if dst != "" {
				argv = append(argv, "-d", dst)
			}
			return argv, text, true
		}
	case "bitsadmin", "bitsadmin.exe":
		// bitsadmin /transfer JOB [/download] [/priority P] URL DEST
		for i, w := range words {
			if strings.Contains(w, "://") && i+1 < len(words) {
				return []string{"curl", "-o", winPath(words[i+1]), strings.Trim(w, `"'`)}, text, true
			}
		}
	case "start-process", "saps":
		// Start-Process [-FilePath] FILE [-ArgumentList "..." | a,b,c]:
		// runs FILE; an argument array's items are its arguments.
		file := ""
		var args []string
		for i := 1; i < len(words); i++ {
			switch lw := strings.ToLower(words[i]); {
			case (lw == "-filepath" || lw == "-filename" || lw == "-path") && i+1 < len(words):
				i++
				file = words[i]
			case (lw == "-argumentlist" || lw == "-args") && i+1 < len(words):
				i++
				for _, item := range psCommaItems(words[i]) {
					if l := strings.ToLower(item); len(item) > 3 && (strings.HasPrefix(l, "/c ") || strings.HasPrefix(l, "/k ")) {
						// cmd.exe /c "a && b": the command line stays one
						// argument, its operators cmd's own.
						args = append(args, item[:2], strings.TrimSpace(item[3:]))
						continue
					}
					args = append(args, winSplit(item)...)
				}
			case strings.HasPrefix(lw, "-"):
				if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && !psSwitch[lw] {
					i++ // -WorkingDirectory DIR, -Verb RunAs
				}
			case file == "":
				file = words[i]
			}
		}
		if file != "" {
			return append([]string{winPath(file)}, args...), text, true
		}
	case "select-string", "sls":
		// Select-String [-Path] FILE [-Pattern] P: grep -E P FILE.
		pat := ""
		var files, pos []string
		for i := 1; i < len(words); i++ {
			switch lw := strings.ToLower(words[i]); {
			case (lw == "-pattern") && i+1 < len(words):
				i++
				pat = strings.Trim(words[i], `"'`)
			case (lw == "-path" || lw == "-literalpath") && i+1 < len(words):
				i++
				files = append(files, winPaths(words[i])...)
				// -Path a, b: the array's further items follow as words.
				for strings.HasSuffix(words[i], ",") && i+1 < len(words) {
					i++
					files = append(files, winPaths(words[i])...)
				}
			case strings.HasPrefix(lw, "-"):
			default:
				pos = append(pos, strings.Trim(words[i], `"'`))
			}
		}
		if pat == "" && len(pos) > 0 {
			pat, pos = pos[0], pos[1:]
		}
		if len(files) == 0 && len(pos) > 0 {
			files = append(files, winPath(pos[0]))
		}
		if pat != "" {
			return append([]string{"grep", "-E", pat}, files...), text, true
		}
	case "add-content", "ac", "set-content", "sc":
		if !hasValue && len(paths) == 2 {
			// Set-Content PATH VALUE, positionally.
			var pos []string
			for _, w := range words[1:] {
				if !strings.HasPrefix(w, "-") {
					pos = append(pos, w)
				}
			}
			if len(pos) == 2 {
				paths, value, hasValue = paths[:1], strings.Trim(pos[1], `"'`), true
			}
		}
		// The value written, as a shell redirect would write it, so the
		// walker records the write and its content.
		if hasValue && len(paths) == 1 {
			op := " > "
			if prog == "add-content" || prog == "ac" {
				op = " >> "
			}
			return []string{"sh", "-c", "printf '%s\\n' " + quote(value) + op + quote(paths[0])}, text, true
		}
	// (Initialize-Disk accepts only a RAW disk, one holding nothing.)
	case "format-volume", "format":
		return []string{"wipefs", "-a", "/dev/windows-volume"}, text, true
	case "clear-disk":
		return []string{"wipefs", "-a", "/dev/windows-disk"}, text, true
	}
	return nil, text, false
}

// winLaunched is the command line a Windows launcher runs: wmic's and
// CIM's Win32_Process Create, runas, PsExec, gsudo, and forfiles /c with
// its @path placeholders standing for the files it visits.
func winLaunched(prog string, words []string) (string, bool) {
	trim := func(w string) string { return strings.Trim(w, `"'`) }
	switch prog {
	case "wmic", "wmic.exe":
		for i := 1; i+2 < len(words); i++ {
			if strings.EqualFold(words[i], "call") && strings.EqualFold(words[i+1], "create") {
				return trim(words[i+2]), true
			}
		}
	case "invoke-cimmethod", "invoke-wmimethod":
		t := strings.Join(words, " ")
		if !strings.Contains(strings.ToLower(t), "win32_process") {
			return "", false
		}
		if m := winCmdLineRe.FindStringSubmatch(t); m != nil {
			return m[1] + m[2], true
		}
		for i, w := range words {
			if strings.EqualFold(w, "-argumentlist") && i+1 < len(words) {
				return trim(words[i+1]), true
			}
		}
	case "start":
		// cmd's start [/min /b /wait ... "title"] PROGRAM ARGS.
		for i := 1; i < len(words); i++ {
			w := words[i]
			if strings.HasPrefix(w, "/") && len(w) <= 12 || i == 1 && strings.HasPrefix(w, `"`) {
				continue
			}
			return strings.Join(words[i:], " "), true
		}
	case "runas", "runas.exe":
		if last := words[len(words)-1]; len(words) > 1 && !strings.HasPrefix(last, "/") {
			return trim(last), true
		}
	case "psexec", "psexec.exe", "psexec64", "psexec64.exe":
		valued := map[string]bool{"-u": true, "-p": true, "-w": true, "-n": true, "-a": true, "-r": true, "-g": true, "-m": true}
		for i := 1; i < len(words); i++ {
			w := strings.ToLower(words[i])
			switch {
			case strings.HasPrefix(w, `\`):
			case valued[w]:
				i++
			case strings.HasPrefix(w, "-"):
			default:
				return strings.Join(words[i:], " "), true
			}
		}
	case "gsudo":
		if len(words) > 1 {
			return strings.Join(words[1:], " "), true
		}
	case "forfiles", "forfiles.exe":
		dir, mask, cmdline, rec := ".", "*", "", false
		for i := 1; i < len(words); i++ {
			switch w := strings.ToLower(words[i]); {
			case w == "/p" && i+1 < len(words):
				i++
				dir = trim(words[i])
			case w == "/m" && i+1 < len(words):
				i++
				mask = trim(words[i])
			case w == "/c" && i+1 < len(words):
				i++
				cmdline = trim(words[i])
			case w == "/s":
				rec = true
			}
		}
		if cmdline == "" {
			return "", false
		}
		if mask == "*.*" {
			mask = "*"
		}
		target := strings.TrimRight(dir, `\/`) + `\` + mask
		if rec {
			target = strings.TrimRight(dir, `\/`) + `\**\` + mask
		}
		r := strings.NewReplacer("@path", `"`+target+`"`, "@file", `"`+mask+`"`, "@fname", `"`+mask+`"`, "0x22", `"`)
		return r.Replace(cmdline), true
	}
	return "", false
}

// winProcLine reads a command line Windows starts without a shell
// (CreateProcess: wmic, CIM, scheduled tasks, services) the way
// PowerShell does: everything after -Command is its one script, pipes
// included ("powershell -c irm URL | iex").
func winProcLine(line string) string {
	m := winPsCommandRe.FindStringSubmatchIndex(line)
	if m == nil {
		return line
	}
	rest := strings.TrimSpace(line[m[1]:])
	if len(rest) > 1 && rest[0] == '"' && rest[len(rest)-1] == '"' && strings.Count(rest, `"`) == 2 {
		rest = rest[1 : len(rest)-1]
	}
	return line[:m[1]] + " " + quote(rest)
}

// winPsCommandRe is PowerShell started with -Command: the program, its
// switches, and -c itself.
var winPsCommandRe = refilter.MustCompile(`(?i)^\s*["']?(?:\S*[\\/])?(?:powershell|pwsh)(?:\.exe)?["']?(?:\s+-(?:nop|noprofile|noni|noninteractive|nologo|w|windowstyle|ep|executionpolicy|sta|mta)(?:\s+(?:hidden|bypass|unrestricted|remotesigned|normal|minimized))?)*\s+(?:-c|-command|/c)\b`)

// winScheduled is the command line a scheduled task or service runs:
// schtasks /create ... /tr CMD, sc create NAME binPath= CMD.
func winScheduled(name string, words []string) string {
	switch strings.TrimSuffix(strings.ToLower(name), ".exe") {
	case "schtasks":
		for i := 1; i+1 < len(words); i++ {
			if strings.EqualFold(words[i], "/tr") {
				return winProcLine(strings.Trim(words[i+1], `"`))
			}
		}
	case "sc":
		for i := 1; i+1 < len(words); i++ {
			if lw := strings.ToLower(words[i]); (lw == "binpath=" || lw == "binpath") && (strings.EqualFold(words[1], "create") || strings.EqualFold(words[1], "config")) {
				return winProcLine(strings.Trim(words[i+1], `"`))
			}
		}
	}
	return ""
}

// cmdForRe is cmd.exe's for loop: the switches, the variable, the set
// and the body.
var cmdForRe = refilter.MustCompile(`(?is)^\s*for\s+((?:/[dDrRlLfF]\s+(?:"[^"]*"\s+|[A-Za-z]:\\\S*\s+)?)*)(%%?[A-Za-z0-9])\s+in\s+\(([^)]*)\)\s+do\s+(.+?)\s*$`)

// cmdFor walks cmd.exe's "for [/d] [/r DIR] [/l] [/f] %x in (SET) do
// CMD": CMD once per item of the set, a wildcard kept as one pattern
// (below DIR at any depth with /r); /f ('COMMAND') runs COMMAND and, when
// CMD is just %x, runs each line it prints; /l with a zero step never
// ends, and CMD spawning a shell in it is a fork bomb.
func (w *walker) cmdFor(m []string, c ctx) {
	sw, v, set, body := strings.ToLower(m[1]), m[2], strings.TrimSpace(m[3]), strings.TrimLeft(strings.TrimSpace(m[4]), "@")
	c = c.with("cmd for")
	switch {
	case strings.Contains(sw, "/f"):
		if len(set) > 2 && set[0] == '\'' && set[len(set)-1] == '\'' {
			inner := set[1 : len(set)-1]
			if strings.EqualFold(strings.Trim(body, `"`), v) {
				w.sub(inner+" | sh", c, nil)
			} else {
				w.sub(inner, c, nil)
				// The body runs once per line the command prints:
				// "for /F %l in ('wevtutil el') do wevtutil cl %l" clears
				// every log the listing names.
				w.sub(strings.ReplaceAll(body, v, `$(`+inner+`)`), c, nil)
			}
		}
		return
	case strings.Contains(sw, "/l"):
		parts := strings.Split(set, ",")
		if len(parts) == 3 && strings.TrimSpace(parts[1]) == "0" {
			if f := strings.Fields(body); len(f) > 0 && (strings.EqualFold(f[0], "start") || strings.EqualFold(f[0], "cmd") || strings.EqualFold(f[0], "powershell")) {
				w.codeItem(codeItem{argv: []string{"cmd-loop", body}, via: "for /l", notes: []string{"fork-bomb"}}, c)
			}
		}
		w.sub(body, c, nil)
		return
	}
	root := ""
	if i := strings.Index(sw, "/r"); i >= 0 {
		root = strings.Trim(strings.TrimSpace(m[1][i+2:]), `"`)
		if j := strings.IndexAny(root, " \t"); j >= 0 {
			root = root[:j]
		}
		if root == "" || strings.HasPrefix(root, "/") {
			root = "."
		}
	}
	items := strings.FieldsFunc(set, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '\t' })
	for i, it := range items {
		if i == 8 {
			break
		}
		if root != "" {
			it = strings.TrimRight(root, `\/`) + `\**\` + it
		}
		w.sub(strings.ReplaceAll(body, v, it), c, nil)
	}
}

// winCmdLineRe is the CommandLine of a Win32_Process Create call's
// arguments: @{CommandLine='...'} or CommandLine="...".
var winCmdLineRe = refilter.MustCompile(`(?i)CommandLine\s*=\s*(?:'([^']*)'|"([^"]*)")`)

// psSwitch are Start-Process's parameters that take no value.
var psSwitch = map[string]bool{"-wait": true, "-nonewwindow": true, "-passthru": true, "-usenewenvironment": true, "-loaduserprofile": true}

// unquoteOnce removes one pair of matching outer quotes, leaving quotes
// inside ("'/c rd "C:\x"'" keeps "C:\x" quoted).
func unquoteOnce(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return strings.Trim(s, `"'`)
}

// psCommaItems splits a PowerShell array literal ("a","b",c) at commas
// outside quotes and strips each item's quotes.
func psCommaItems(s string) []string {
	var out []string
	var q byte
	start := 0
	for i := 0; i <= len(s); i++ {
		switch {
		case i == len(s) || q == 0 && s[i] == ',':
			if item := unquoteOnce(strings.TrimSpace(s[start:i])); item != "" {
				out = append(out, item)
			}
			start = i + 1
		case q != 0 && s[i] == q:
			q = 0
		case q == 0 && (s[i] == '"' || s[i] == '\''):
			q = s[i]
		}
	}
	return out
}

// psEnvRe is PowerShell's environment prefix, $env:NAME.
var psEnvRe = refilter.MustCompile(`(?i)\$env:`)

// batchFile reports whether name is a cmd.exe batch script (.bat,
// .cmd, in any case), which cmd runs as a file of its own lines.
func batchFile(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".bat") || strings.HasSuffix(l, ".cmd")
}

// winPaths reads one word that may be a PowerShell array of paths
// ("'dist',", "a,b"): each item, normalised.
func winPaths(word string) []string {
	if !strings.Contains(word, ",") {
		return []string{winPath(strings.Trim(word, `"'`))}
	}
	var out []string
	for _, it := range psCommaItems(word) {
		out = append(out, winPath(it))
	}
	return out
}

// winSplit splits a command line at blanks, keeping quoted parts whole
// and backslashes as they are; it stops at the first shell operator.
func winSplit(s string) []string {
	var out []string
	var b strings.Builder
	var q byte
	in := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case q != 0:
			if ch == q {
				q = 0
			}
			b.WriteByte(ch)
		case ch == '"' || ch == '\'':
			q = ch
			b.WriteByte(ch)
			in = true
		case ch == ' ' || ch == '\t':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		case ch == '|' || ch == ';' || ch == '&' || ch == '>' || ch == '<' || ch == '\n':
			if in {
				out = append(out, b.String())
			}
			return out
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// uncPath maps a UNC path onto the file system it names: an
// administrative share of this machine (\\localhost\c$\Users) is the
// drive itself, a WSL distribution's share (\\wsl$\Ubuntu\home) is that
// distribution's root, and any other server's share is mounted under
// /mnt (other people's files, as a mounted volume is).
func uncPath(p string) string {
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) < 2 {
		return p
	}
	server, share, rest := strings.ToLower(parts[0]), parts[1], strings.Join(parts[2:], "/")
	switch {
	case (server == "localhost" || server == "127.0.0.1" || server == ".") && len(share) == 2 && share[1] == '$':
		return "/" + rest
	case server == "wsl$" || server == "wsl.localhost":
		return "/" + rest
	}
	return "/mnt/" + parts[0] + "/" + share + "/" + rest
}

// winPath turns a Windows path into the POSIX form the pack's globs use:
// %USERPROFILE%, $env:USERPROFILE and $HOME are "~", a drive prefix goes
// (C:\Users\x is /Users/x, which is a home), backslashes become slashes.
func winPath(p string) string {
	p = strings.Trim(p, `"'`)
	// "$env:TEMP\x" inside a POSIX shell's double quotes: the shell took
	// $env for a variable of its own; the text meant PowerShell's.
	p = strings.ReplaceAll(p, unkOpen+"env"+unkClose+":", "$env:")
	// \\?\C:\x, the long-path form, is C:\x.
	p = strings.TrimPrefix(strings.TrimPrefix(p, `\\?\`), `//?/`)
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		p = uncPath(p)
	}
	lp := strings.ToLower(p)
	for _, pre := range []string{"%userprofile%", "${env:userprofile}", "$env:userprofile", "%homedrive%%homepath%", "%homepath%", "$env:homepath", "${env:home}", "$env:home", "${home}", "$home", "~"} {
		if strings.HasPrefix(lp, pre) {
			p = "~" + p[len(pre):]
			break
		}
	}
	for pre, dir := range winDirs {
		if strings.HasPrefix(lp, pre) {
			p = dir + p[len(pre):]
			break
		}
	}
	for _, pre := range []string{"hklm:", "hkey_local_machine:", "registry::hkey_local_machine", "registry::hklm"} {
		if strings.HasPrefix(lp, pre) {
			// The machine's registry is the system's configuration: a
			// tree under the Windows directory.
			p = "/Windows/Registry/HKLM" + p[len(pre):]
			break
		}
	}
	if len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z') {
		p = p[2:]
		if p == "" {
			p = "/"
		}
	}
	return strings.ReplaceAll(p, `\`, "/")
}

func hasOperand(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return true
		}
	}
	return false
}

// psListedPath is what a PowerShell listing piped into this command
// names: "Get-ChildItem -Path X" lists X's entries ("X/*"); a listing
// narrowed by -Include or -Filter was mapped to the names it selects
// ("X/**/bin"), which are what it lists.
func psListedPath(in stdinInfo) []string {
	for _, s := range in.sources {
		switch strings.ToLower(s.Name) {
		case "get-childitem", "gci", "ls", "dir":
		default:
			continue
		}
		var out []string
		for i, a := range s.Args {
			la := strings.ToLower(a)
			switch {
			case (la == "-path" || la == "-literalpath") && i+1 < len(s.Args):
				return []string{winPath(s.Args[i+1]) + "/*"}
			case strings.HasPrefix(a, "-"):
			case strings.Contains(a, "/**/") || strings.HasPrefix(a, "**/"):
				out = append(out, a)
			default:
				return []string{winPath(a) + "/*"}
			}
		}
		return out
	}
	return nil
}

// psIncludes are the names a listing's -Include or -Filter select.
func psIncludes(words []string) []string {
	var out []string
	for i, w := range words {
		if lw := strings.ToLower(w); (lw == "-include" || lw == "-filter") && i+1 < len(words) {
			for _, n := range strings.Split(words[i+1], ",") {
				if n = strings.Trim(strings.TrimSpace(n), `"'`); n != "" {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// psOutFile is the -OutFile value of a PowerShell download.
func psOutFile(words []string) string {
	for i, w := range words {
		if lw := strings.ToLower(w); (lw == "-outfile" || lw == "-o") && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}

// psURL is the first URL among a PowerShell command's words.
func psURL(words []string) string {
	for _, w := range words {
		if w = strings.Trim(w, `"'`); strings.Contains(w, "://") {
			return w
		}
	}
	return ""
}

// winExeRe is a command line starting with a Windows path to a program.
var winExeRe = refilter.MustCompile(`^\s*(?:"(?:[A-Za-z]:\\|\.\\|\$env:\w+\\|%\w+%\\)[^"]*\.(?:exe|bat|cmd|ps1|com)"|(?:[A-Za-z]:\\|\.\\|\$env:\w+\\|%\w+%\\)[^"\s]*\.(?:exe|bat|cmd|ps1|com)\b)`)
