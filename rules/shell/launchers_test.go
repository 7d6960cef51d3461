package shell

import (
	"reflect"
	"testing"
)

func TestOptionCommands(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"ssh", []string{"-o", "ProxyCommand=nc -X 5 %h %p", "host"}, []string{"nc -X 5 %h %p"}},
		{"ssh", []string{"-oLocalCommand=make sync", "-o", "PermitLocalCommand=yes", "h"}, []string{"make sync"}},
		{"ssh", []string{"-o", "StrictHostKeyChecking=no", "h", "uptime"}, nil},
		{"rsync", []string{"--rsync-path=sudo rsync", "-e", "ssh -p 2222", "a", "h:b"}, []string{"sudo rsync", "ssh -p 2222"}},
		{"man", []string{"-P", "cat", "ls"}, []string{"cat"}},
		{"gdb", []string{"-batch", "-ex", "shell ls", "-ex", "!id", "-ex", `call (int)system("date")`, "-ex", "bt"}, []string{"ls", "id", "date"}},
		{"gdb", []string{"-ex", "python print(1)"}, []string{"python3 -c 'print(1)'"}},
		{"screen", []string{"-S", "w", "-X", "stuff", "make test^M"}, []string{"make test\n"}},
		{"expect", []string{"-c", `spawn ssh {a b}; expect eof`}, []string{"ssh 'a b'"}},
		{"capsh", []string{"--drop=cap_net_raw", "--", "-c", "id"}, []string{"bash '-c' 'id'"}},
		{"nsenter", []string{"-t", "1", "-m", "--", "ls", "/"}, []string{"'ls' '/'"}},
		{"script", []string{"-q", "/dev/null", "top", "-l", "1"}, []string{"'top' '-l' '1'"}},
		{"script", []string{"-c", "make", "log.txt"}, nil},
		{"make", []string{"--eval=x:\n\techo hi", "x"}, []string{"echo hi"}},
		{"ls", []string{"-o", "ProxyCommand=x"}, nil},
	}
	for _, c := range cases {
		if got := optionCommands(c.name, c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("optionCommands(%s %q) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

// A command held in an environment variable is walked wherever it is
// set: as a prefix, an export or a plain assignment.
func TestCommandVars(t *testing.T) {
	for _, src := range []string{
		`PAGER='sh -c "rm -rf ~"' git log`,
		`export GIT_SSH_COMMAND='rm -rf ~'`,
		`PROMPT_COMMAND='rm -rf ~'`,
		`LESSOPEN='|rm -rf ~ %s' less f`,
		`BASH_ENV=/tmp/x.sh bash -c true`,
	} {
		cmds, _ := Parse(src, NewState())
		found := false
		for _, c := range cmds {
			if c.Name == "rm" && len(c.Args) >= 2 && c.Args[1] == "~" || c.Name == "source" {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: the variable's command was not walked: %v", src, cmds)
		}
	}
	cmds, _ := Parse(`EDITOR=vim git commit`, NewState())
	for _, c := range cmds {
		if c.Name == "rm" {
			t.Errorf("EDITOR=vim: unexpected %v", c)
		}
	}
}

func TestReadPercentLit(t *testing.T) {
	for in, want := range map[string]string{
		"%q{rm -rf ~}) x": "rm -rf ~",
		"%Q(a (b) c)":     "a (b) c",
		"%[x]":            "x",
		`%q{a \} b}`:      `a \} b`,
		"%q|ls|":          "ls",
		"% q{x}":          "",
		"%q{unterminated": "",
	} {
		got, _, ok := readPercentLit(in)
		if want == "" && ok || want != "" && got != want {
			t.Errorf("readPercentLit(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestShebangSplit(t *testing.T) {
	for in, want := range map[string]string{
		"#!/usr/bin/env -S bash -c 'x'\nrest": "bash -c 'x'",
		"#!/usr/bin/env --split-string=a b\n": "",
		"#!/usr/bin/env python3\n":            "",
		"#!/bin/sh\n":                         "",
		"echo hi":                             "",
	} {
		got, ok := shebangSplit(in)
		if got != want || ok != (want != "") {
			t.Errorf("shebangSplit(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
