package importer

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
)

// claudeTool maps a Claude Code tool name to the name the rules know.
func claudeTool(name string) string {
	if name == "Agent" {
		// Claude Code 2.1.63 renamed Task to Agent; the input is the same.
		return "Task"
	}
	return name
}

// codexShellTools are the Codex tools whose arguments carry a command.
var codexShellTools = map[string]bool{
	"shell": true, "container.exec": true, "shell_command": true, "exec_command": true, "local_shell": true,
}

// mappedCall is one Codex call after mapping: the tool name the rules know,
// its arguments as JSON, and the working directory if the call gave one.
type mappedCall struct {
	tool string
	args string
	cwd  string
}

// codexFunction maps a function_call (name, JSON-in-a-string arguments).
func codexFunction(name, arguments string) mappedCall {
	var obj map[string]json.RawMessage
	isObj := json.Unmarshal([]byte(arguments), &obj) == nil && obj != nil
	switch {
	case codexShellTools[name]:
		if isObj {
			cmd := ""
			for _, k := range []string{"command", "cmd"} {
				if raw, ok := obj[k]; ok {
					cmd = commandText(raw)
					break
				}
			}
			if cmd != "" {
				return mappedCall{tool: "terminal", args: terminalArgs(cmd), cwd: firstString(obj, "workdir", "working_directory", "cwd")}
			}
		}
		return mappedCall{tool: "terminal", args: rawArgs(arguments)}
	case name == "apply_patch":
		if isObj {
			if raw, ok := obj["input"]; ok {
				var patch string
				if json.Unmarshal(raw, &patch) == nil {
					return mappedCall{tool: "patch", args: patchArgs(patch)}
				}
			}
		}
		return mappedCall{tool: "patch", args: rawArgs(arguments)}
	}
	return mappedCall{tool: codexToolName(name), args: rawArgs(arguments)}
}

// codexCustom maps a custom_tool_call, whose input is free text.
func codexCustom(name, input string) mappedCall {
	if name == "apply_patch" {
		return mappedCall{tool: "patch", args: patchArgs(input)}
	}
	b, _ := json.Marshal(map[string]string{"input": input})
	return mappedCall{tool: codexToolName(name), args: string(b)}
}

// codexLocalShell maps a local_shell_call action.
func codexLocalShell(argv []string, workdir string) mappedCall {
	return mappedCall{tool: "terminal", args: terminalArgs(joinArgv(argv)), cwd: workdir}
}

// codexToolName gives Codex's qualified MCP names (server__tool) the mcp__
// prefix every rule keys MCP tools on.
func codexToolName(name string) string {
	if strings.HasPrefix(name, "mcp__") {
		return name
	}
	if i := strings.Index(name, "__"); i > 0 && i+2 < len(name) {
		return "mcp__" + name
	}
	return name
}

func terminalArgs(cmd string) string {
	return marshalNoEscape(map[string]string{"command": cmd})
}

func patchArgs(patch string) string {
	m := map[string]string{"mode": "patch", "patch": patch}
	if files := patchFiles(patch); len(files) > 0 {
		m["path"] = files[0]
	}
	return marshalNoEscape(m)
}

// patchFiles lists the files an apply_patch envelope touches, in order.
func patchFiles(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if strings.HasPrefix(line, p) {
				if f := strings.TrimSpace(line[len(p):]); f != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// commandText reads a command given as a string or as an argv array.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return joinArgv(argv)
	}
	return ""
}

// joinArgv renders an argv the way a shell would read it back. The
// ubiquitous [bash, -lc, CMD] wrapper is peeled so rules see CMD itself
// rather than flagging every Codex command as an interpreter -c call.
func joinArgv(argv []string) string {
	if len(argv) == 3 {
		switch path.Base(argv[0]) {
		case "bash", "sh", "zsh":
			if argv[1] == "-c" || argv[1] == "-lc" {
				return argv[2]
			}
		}
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func firstString(obj map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// rawArgs keeps arguments verbatim, compacted when they are JSON.
func rawArgs(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	return s
}

// marshalNoEscape encodes without Go's HTML escaping of <, > and &, so
// commands read in the ledger exactly as they were typed.
func marshalNoEscape(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}
