package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestWindowsCommands checks that PowerShell and cmd.exe commands are
// read from their source text (backslashes kept) and mapped onto the
// POSIX programs the rules know, while POSIX uses of the same names stay
// as they are.
func TestWindowsCommands(t *testing.T) {
	cases := []struct{ src, want string }{
		{`Remove-Item -Recurse -Force C:\Users\dev\Documents`, "rm -r -f /Users/dev/Documents"},
		{`Remove-Item -Path $env:USERPROFILE\code -Recurse`, "rm -r ~/code"},
		{`rd /s /q C:\Users\dev`, "rm -r -f /Users/dev"},
		{`del /q obj\*.*`, "rm -f obj/*.*"},
		{`Get-Content $env:USERPROFILE\.ssh\id_rsa -TotalCount 5`, "cat ~/.ssh/id_rsa"},
		{`type %USERPROFILE%\.aws\credentials`, "cat ~/.aws/credentials"},
		{`Format-Volume -DriveLetter D -Force`, "wipefs -a /dev/windows-volume"},
		{`type rm`, "type rm"},
		{`rmdir build`, "rmdir build"},
	}
	for _, c := range cases {
		cmds, err := Parse(c.src, nil)
		if err != nil || len(cmds) == 0 {
			t.Fatalf("%s: %v %v", c.src, cmds, err)
		}
		if got := strings.ReplaceAll(cmds[0].String(), `"`, "'"); got != c.want {
			t.Errorf("%s: got %q, want %q", c.src, got, c.want)
		}
	}
}

// TestWindowsScripts: a batch file the session wrote is read a line at
// a time when run, and "for /F ... in ('CMD') do BODY" runs BODY on
// what CMD prints.
func TestWindowsScripts(t *testing.T) {
	cases := []struct {
		calls []string
		want  string
	}{
		{[]string{`for /F "tokens=*" %1 in ('wevtutil el') DO wevtutil cl "%1"`}, "wevtutil cl $(...)"},
		{[]string{`Clear-Disk -Number 1 -RemoveData`}, "wipefs -a /dev/windows-disk"},
	}
	st := NewState()
	st.Files["/Scripts/free-space.bat"] = &File{Content: "@echo off\nrem free space\ndel /s /q /f E:\\*.*\nfor /d %%d in (E:\\*) do rd /s /q \"%%d\"\n"}
	cases = append(cases,
		struct {
			calls []string
			want  string
		}{[]string{`cmd /c C:\Scripts\free-space.bat`}, "rm -r -f /*"})
	for _, c := range cases {
		var got []string
		for _, call := range c.calls {
			cmds, _ := Parse(call, st)
			for i := range cmds {
				got = append(got, strings.ReplaceAll(cmds[i].String(), `"`, "'"))
			}
		}
		if !slices.Contains(got, c.want) {
			t.Errorf("%q: want %q among %q", c.calls, c.want, got)
		}
	}
}
