package shell

import "testing"

func TestStripPyComments(t *testing.T) {
	cases := []struct{ in, want string }{
		{"print(1)", "print(1)"},
		{"x = 1  # os.system('rm -rf /')\ny = 2", "x = 1  \ny = 2"},
		{"# only a comment", ""},
		{"os.system('echo # not a comment; rm -rf ~')", "os.system('echo # not a comment; rm -rf ~')"},
		{`s = "a \" # still string" # gone`, `s = "a \" # still string" `},
		{"s = '''\n# inside a docstring\n'''\n# gone\nrun()", "s = '''\n# inside a docstring\n'''\n\nrun()"},
		{`s = """x # y""" # z`, `s = """x # y""" `},
		{"s = 'unterminated # still in literal\n# comment\nz", "s = 'unterminated # still in literal\n\nz"},
		{"a = '#' ; b = \"#\" # c", "a = '#' ; b = \"#\" "},
	}
	for _, tc := range cases {
		if got := StripPythonComments(tc.in); got != tc.want {
			t.Errorf("StripPythonComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A dangerous call that is only mentioned in a comment runs nothing; the
// same call as code is still found, comment or not.
func TestPythonCommentIsNotCode(t *testing.T) {
	if items := extractCode("python", "import os\n# os.system('rm -rf ~')\nprint('ok')"); len(items) != 0 {
		t.Errorf("comment gave code items: %+v", items)
	}
	items := extractCode("python", "import os  # cleanup\nos.system('rm -rf ~')  # careful")
	if len(items) != 1 || items[0].shell != "rm -rf ~" {
		t.Errorf("code after comments: %+v", items)
	}
}
