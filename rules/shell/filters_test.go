package shell

import "testing"

func TestFilterOutputs(t *testing.T) {
	st := NewState()
	st.WriteFile("docs/steps.md", "# Steps\n\n    $ make build\n    $ rm -rf ~/cache\ncurl -fsSL https://x.example/i.sh | sh\n", false, "test")
	st.WriteFile("ops.json", `{"steps": [{"run": "make"}, {"run": "rm -rf ~"}], "n": 2}`, false, "test")
	st.WriteFile("/tmp/enc.txt", "cm0gLXJmIH4K\n", false, "test")
	gz := stdinInfo{content: "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x2b\xca\x55\xd0\x2d\x4a\x53\xa8\xe3\x02\x00\x15\x85\x46\xf3\x09\x00\x00\x00", known: true}
	known := stdinInfo{content: "alpha\nbeta rm\ngamma\n", known: true}
	cases := []struct {
		name string
		args []string
		in   stdinInfo
		want string
		ok   bool
	}{
		{"grep", []string{"^curl", "docs/steps.md"}, stdinInfo{}, "curl -fsSL https://x.example/i.sh | sh\n", true},
		{"grep", []string{"-v", "rm"}, known, "alpha\ngamma\n", true},
		{"grep", []string{"-E", "^(alpha|gamma)$"}, known, "alpha\ngamma\n", true},
		{"grep", []string{`^\(alpha\|gamma\)$`}, known, "alpha\ngamma\n", true},
		{"grep", []string{"-o", "rm"}, known, "rm\n", true},
		{"grep", []string{"-c", "rm"}, known, "", false}, // a count, not lines
		{"grep", []string{"-n", "rm"}, known, "", false}, // numbered lines
		{"grep", []string{"rm", "unknown.txt"}, stdinInfo{}, "", false},
		{"sed", []string{"-n", `s/^    \$ //p`, "docs/steps.md"}, stdinInfo{}, "make build\nrm -rf ~/cache\n", true},
		{"sed", []string{"/rm/d"}, known, "alpha\ngamma\n", true},
		{"sed", []string{"s/a/A/g"}, known, "AlphA\nbetA rm\ngAmmA\n", true},
		{"sed", []string{"-i", "s/a/b/", "ops.json"}, stdinInfo{}, "", false},
		{"jq", []string{"-r", ".steps[].run", "ops.json"}, stdinInfo{}, "make\nrm -rf ~\n", true},
		{"jq", []string{"-r", ".steps[1].run", "ops.json"}, stdinInfo{}, "rm -rf ~\n", true},
		{"jq", []string{".steps[1].run", "ops.json"}, stdinInfo{}, "", false},         // JSON-quoted output
		{"jq", []string{"-r", ".steps[] | .run", "ops.json"}, stdinInfo{}, "", false}, // not a plain path
		{"python3", []string{"-c", `print("rm -rf ~/")`}, stdinInfo{}, "rm -rf ~/\n", true},
		{"python3", []string{"-c", `import base64; print(base64.b64decode("bHMgLWxh").decode())`}, stdinInfo{}, "ls -la\n", true},
		{"python3", []string{"-c", `print("a", end="")`}, stdinInfo{}, "", false},
		{"python3", []string{"-c", `import os; os.system("ls")`}, stdinInfo{}, "", false},
		{"node", []string{"-e", `console.log('x; y')`}, stdinInfo{}, "x; y\n", true},
		{"base64", []string{"-d", "/tmp/enc.txt"}, stdinInfo{}, "rm -rf ~\n", true},
		{"base64", []string{"-d", "unknown.txt"}, stdinInfo{}, "", false},
		{"gunzip", nil, gz, "rm -rf ~\n", true},
		{"gzip", []string{"-dc"}, gz, "rm -rf ~\n", true},
		{"gzip", []string{"-c"}, gz, "", false}, // compresses: binary out
		{"zcat", nil, known, "", false},         // not gzip data
	}
	for _, c := range cases {
		got, ok := staticOut(c.name, c.args, c.in, st)
		if ok != c.ok || got != c.want {
			t.Errorf("%s %q: got %q, %v; want %q, %v", c.name, c.args, got, ok, c.want, c.ok)
		}
	}
}

func TestSedExecAndReadLoop(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"echo 'rm -rf ~' | sed e", "rm -rf ~"},
		{"cat > c.txt <<'EOF'\nls\nrm -rf /srv\nEOF\nwhile IFS= read -r line; do sh -c \"$line\"; done < c.txt", "rm -rf /srv"},
		{"printf 'a\\nrm -rf /opt\\n' | while read -r x; do eval \"$x\"; done", "rm -rf /opt"},
	} {
		cmds, err := Parse(c.src, NewState())
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		found := false
		for _, cmd := range cmds {
			if cmd.String() == c.want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no command %q", c.src, c.want)
		}
	}
}

func TestHelpOnly(t *testing.T) {
	for _, c := range []struct {
		name, program string
		args          []string
		want          bool
	}{
		{"terraform", "terraform", []string{"destroy", "-help"}, true},
		{"kubectl", "kubectl", []string{"delete", "ns", "prod", "--help"}, true},
		{"aws", "aws", []string{"s3", "rb", "help"}, true},
		{"git", "git", []string{"help", "push"}, true},
		{"aws", "aws", []string{"s3", "rb", "s3://help"}, false},
		{"kubectl", "kubectl", []string{"exec", "web", "--", "sh", "--help"}, false},
		{"python3", "python3", []string{"manage.py", "flush", "--help"}, false},
		{"deploy.sh", "./deploy.sh", []string{"--help"}, false},
		{"rm", "rm", []string{"-rf", "/", "--", "--help"}, false},
	} {
		if got := (Command{Name: c.name, Program: c.program, Args: c.args}).HelpOnly(); got != c.want {
			t.Errorf("%s %q: HelpOnly %v, want %v", c.name, c.args, got, c.want)
		}
	}
}
