package shell

import (
	"encoding/json"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
)

// Task runners run shell lines from files the session may have written
// or edited: make recipes and package.json scripts. "Edit Makefile to say
// rm -rf ~/, then make clean" is a script written in one call and run in
// another.

var makeTargetRe = refilter.MustCompile(`^([A-Za-z0-9_./%${}()-]+(?:[ \t]+[A-Za-z0-9_./%${}()-]+)*)[ \t]*::?(?:[^=]|$)`)

// makeRecipes returns the recipe lines of the given targets (the first
// target when none is given). Content that has no target lines at all (an
// edited fragment) is taken as recipe lines.
func makeRecipes(content string, targets []string) []string {
	var out []string
	var cur []string
	first := ""
	sawTarget := false
	byTarget := map[string][]string{}
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(line, "\t") {
			for _, t := range cur {
				byTarget[t] = append(byTarget[t], strings.TrimSpace(line))
			}
			continue
		}
		if m := makeTargetRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "#") {
			sawTarget = true
			cur = strings.Fields(m[1])
			if first == "" && len(cur) > 0 && !strings.HasPrefix(cur[0], ".") {
				first = cur[0]
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		cur = nil
	}
	if !sawTarget {
		for _, line := range strings.Split(content, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return cleanRecipes(out)
	}
	if len(targets) == 0 && first != "" {
		targets = []string{first}
	}
	for _, t := range targets {
		out = append(out, byTarget[t]...)
	}
	return cleanRecipes(out)
}

func cleanRecipes(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimLeft(l, "@-+ \t")
		out = append(out, strings.ReplaceAll(l, "$$", "$"))
	}
	return out
}

// runTask follows make and npm/yarn/pnpm/bun run into the recipes or
// scripts of a Makefile or package.json the session wrote.
func (w *walker) runTask(cmd *Command, c ctx) {
	args := cmd.Args
	switch cmd.Name {
	case "make", "gmake":
		file := ""
		var targets []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case (a == "-f" || a == "--file" || a == "-C") && i+1 < len(args):
				if a != "-C" {
					file = args[i+1]
				}
				i++
			case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
			default:
				targets = append(targets, a)
			}
		}
		names := []string{file}
		if file == "" {
			names = []string{"Makefile", "makefile", "GNUmakefile"}
		}
		for _, n := range names {
			key, f := w.st.LookupFile(n)
			if f == nil || f.Downloaded {
				continue
			}
			cc := c.with("make " + strings.Join(targets, " "))
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			for _, r := range makeRecipes(f.Content, targets) {
				w.sub(r, cc, nil)
			}
			return
		}
	case "npm", "pnpm", "yarn", "bun":
		script := ""
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if a == "run" || a == "run-script" {
				if i+1 < len(args) {
					script = args[i+1]
				}
				break
			}
			if a == "test" || a == "start" || a == "build" || cmd.Name != "npm" {
				script = a
			}
			break
		}
		if script == "" {
			return
		}
		key, f := w.st.LookupFile("package.json")
		if f == nil || f.Downloaded {
			return
		}
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if json.Unmarshal([]byte(f.Content), &pkg) != nil {
			return
		}
		if s, ok := pkg.Scripts[script]; ok {
			cc := c.with(cmd.Name + " run " + script)
			cc.crossCall = cc.crossCall || w.st.earlier("file:"+key)
			w.sub(s, cc, nil)
		}
	}
}
