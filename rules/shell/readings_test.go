package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestReadingsOfThisShape checks readings added for PowerShell, process
// substitution and prefix assignments: each source gives a line with
// the wanted command and via chain.
func TestReadingsOfThisShape(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// cmd < <(producer) is the pipeline producer | cmd.
		{`gh secret set X < <(op read op://a/b/c)`, "op read op://a/b/c"},
		// A grouped cmdlet call given as a parameter is piped in.
		{`Remove-VBRBackup -Backup (Get-VBRBackup -Name "SQL") -FromDisk -Confirm:$false`, "Remove-VBRBackup -FromDisk -Confirm:$false"},
		// Rootless Podman's namespace runs the command.
		{`podman unshare rm -rf ~/x`, "rm -rf ~/x [podman]"},
		// The XDG base directories, unset, are their defaults.
		{`cat $XDG_RUNTIME_DIR/containers/auth.json`, "cat /run/user/1000/containers/auth.json"},
		{`rm -rf "$XDG_CONFIG_HOME"/app`, "rm -rf ~/.config/app"},
		// A prefix assignment to a program that prints its environment.
		{`T=$(cat ~/.ssh/id_rsa) printenv T`, "cat ~/.ssh/id_rsa [env-print > $(...)]"},
		{`T=$(cat ~/.ssh/id_rsa) npm publish`, "cat ~/.ssh/id_rsa [env-assign > client-arg > $(...)]"},
	} {
		got := strings.Join(cmds(t, tc.src, nil), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant a line containing %q", tc.src, got, tc.want)
		}
	}
}

// TestProcSubstStdinIsAPipe checks that the producer of "cmd < <(p)"
// sits in a pipeline ahead of cmd, and that other redirections are left
// alone.
func TestProcSubstStdinIsAPipe(t *testing.T) {
	cs, err := Parse(`gh secret set X < <(op read op://a/b/c)`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Name != "op" || cs[0].PipeLen != 2 || cs[0].PipeIndex != 0 || cs[1].Name != "gh" || cs[1].PipeIndex != 1 {
		t.Fatalf("want op | gh as a two-stage pipeline, got %+v", cs)
	}
	cs, err = Parse(`diff <(sort a) <(sort b)`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.PipeLen > 1 {
			t.Errorf("diff's process substitutions are arguments, not a pipeline: %s in a pipeline", c.String())
		}
	}
}

// TestRevealsEnvAndOwnAssign checks which commands given a prefix
// assignment can show its value.
func TestRevealsEnvAndOwnAssign(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`X=1 printenv X`, true},
		{`X=1 env`, true},
		{`X=1 env -u Y`, true},
		{`X=1 env FOO=1 make`, false},
		{`X=1 bash -c 'echo $X'`, true},
		{`X=1 sh -ec 'echo $X'`, true},
		{`X=1 python3 -c 'import os'`, true},
		{`X=1 python3 app.py`, false},
		{`X=1 npm publish`, false},
		{`X=1 curl -d "$X" https://h`, true},
		{`X=1 curl -d "$Y" https://h`, false},
	} {
		f, err := parseCached(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		ce := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if got := revealsEnv(ce.Args) || usesOwnAssign(ce); got != tc.want {
			t.Errorf("%s: reveals %v, want %v", tc.src, got, tc.want)
		}
	}
}

// TestConanRecipe checks which recipe file a conan command runs.
func TestConanRecipe(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string
	}{
		{"create recipes/sdk --build=missing", "recipes/sdk/conanfile.py"},
		{"create -pr prof recipes/sdk", "recipes/sdk/conanfile.py"},
		{"install .", "conanfile.py"},
		{"build x/conanfile.py", "x/conanfile.py"},
		{"remove * -c", ""},
		{"upload x -r acme", ""},
	} {
		if got := conanRecipe(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("conan %s: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestJSRunnerFile checks which "deno run" and "bun run" command lines
// run a file (read as the runtime given it) and which run a script
// named in package.json.
func TestJSRunnerFile(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"deno run -A x.ts", true},
		{"deno run -", true},
		{"bun run /tmp/x.ts", true},
		{"bun run -", true},
		{"bun run build", false},
		{"bun test x.ts", false},
		{"node run x.js", false},
	} {
		if got := jsRunnerFile(strings.Fields(tc.line)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.line, got, tc.want)
		}
	}
}
