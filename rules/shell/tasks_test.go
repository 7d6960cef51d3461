package shell

import (
	"strings"
	"testing"
)

// TestTaskRunners checks that make and npm run follow the recipes and
// scripts of a Makefile or package.json the session wrote, and only the
// target asked for.
func TestTaskRunners(t *testing.T) {
	st := NewState()
	st.WriteFile("Makefile", "clean:\n\trm -rf build\nnuke:\n\t@rm -rf ~\n", false, "write_file")
	st.WriteFile("package.json", `{"scripts": {"wipe": "rm -rf ~/projects", "test": "jest"}}`, false, "write_file")
	cases := []struct {
		src  string
		want []string
	}{
		{"make clean", []string{"make clean", "rm -rf build"}},
		{"make nuke", []string{"make nuke", "rm -rf ~"}},
		{"make", []string{"make", "rm -rf build"}},
		{"npm run wipe", []string{"npm run wipe", "rm -rf ~/projects"}},
		{"npm test", []string{"npm test", "jest"}},
		{"yarn wipe", []string{"yarn wipe", "rm -rf ~/projects"}},
	}
	for _, c := range cases {
		cmds, err := Parse(c.src, st)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cmd := range cmds {
			got = append(got, cmd.String())
		}
		if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("%s: got %q, want %q", c.src, got, c.want)
		}
	}
	// An edited fragment of a Makefile (no target lines) is taken as
	// recipe lines.
	if r := makeRecipes("rm -rf ~/", []string{"clean"}); len(r) != 1 || r[0] != "rm -rf ~/" {
		t.Errorf("fragment recipes: %q", r)
	}
}
