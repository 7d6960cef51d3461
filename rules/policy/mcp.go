package policy

import (
	"strings"

	"github.com/ledger-audit/ledger-audit/ledger"
)

// mcpArgv reads a structured MCP tool call as the command line that does
// the same thing, so the shell rules judge it: a kubectl or git server
// handed an argument array ({"args": ["delete", "namespace", "prod"]})
// runs that program, and the common verbs of database, container,
// cluster, git and filesystem servers (drop_database, delete_namespace,
// remove_volume, git_push with force, delete_directory, ...) are the
// commands their names say. It reports false for calls it does not know,
// which keep being judged by their file and text contents only.
func mcpArgv(tool string, m ledger.ArgsObject) ([]string, bool) {
	if !strings.HasPrefix(tool, "mcp__") {
		return nil, false
	}
	parts := strings.Split(strings.TrimPrefix(tool, "mcp__"), "__")
	server := strings.ToLower(parts[0])
	verb := strings.ToLower(parts[len(parts)-1])
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := m[k].(string); ok {
				return v
			}
		}
		return ""
	}
	flag := func(k string) bool { b, _ := m[k].(bool); return b }
	strs := func(k string) []string {
		var out []string
		if a, ok := m[k].([]any); ok {
			for _, x := range a {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	// An argument array for a CLI named by the tool or its server.
	if args := strs("args"); len(args) > 0 {
		prog := mcpPrograms[verb]
		if prog == "" {
			prog = mcpPrograms[server]
		}
		if prog != "" {
			return append([]string{prog}, args...), true
		}
	}
	mongo := strings.Contains(server, "mongo")
	switch {
	case strings.Contains(server, "browser") || strings.Contains(server, "fetch") || strings.Contains(server, "puppeteer") || strings.Contains(server, "playwright") || verb == "fetch" || verb == "navigate" || verb == "browser_navigate" || verb == "goto":
		// A browser or fetch tool opening a URL fetches it as curl would
		// (the cloud metadata endpoint included).
		if u := str("url", "uri", "href"); strings.Contains(u, "://") {
			return []string{"curl", "-s", u}, true
		}
	}
	switch verb {
	case "delete_namespace":
		if n := str("name", "namespace"); n != "" {
			return []string{"kubectl", "delete", "namespace", n}, true
		}
	case "drop_database":
		if d := str("database", "name", "db"); d != "" {
			if mongo {
				return []string{"mongosh", d, "--eval", "db.dropDatabase()"}, true
			}
			return []string{mcpSQLClient(tool), "-c", "DROP DATABASE " + d}, true
		}
	case "drop_collection":
		if d, c := str("database", "db"), str("collection", "name"); c != "" {
			return []string{"mongosh", d, "--eval", "db." + c + ".drop()"}, true
		}
	case "remove_volume", "delete_volume":
		if n := str("name", "volume"); n != "" {
			return []string{"docker", "volume", "rm", n}, true
		}
	case "delete_directory", "remove_directory":
		if p := str("path", "directory"); p != "" {
			if flag("recursive") {
				return []string{"rm", "-r", "-f", p}, true
			}
			return []string{"rmdir", p}, true
		}
	case "delete_file", "remove_file":
		if p := str("path", "file"); p != "" {
			return []string{"rm", "-f", p}, true
		}
	case "move_file":
		if s, d := str("source", "from"), str("destination", "to"); s != "" && d != "" {
			return []string{"mv", s, d}, true
		}
	case "read_multiple_files":
		if ps := strs("paths"); len(ps) > 0 {
			return append([]string{"cat"}, ps...), true
		}
	case "git_push", "push":
		if b := str("branch", "ref"); b != "" && (server == "git" || strings.HasPrefix(verb, "git")) {
			argv := []string{"git", "push"}
			if flag("force") {
				argv = append(argv, "--force")
			}
			remote := str("remote")
			if remote == "" {
				remote = "origin"
			}
			return append(argv, remote, b), true
		}
	case "git_reset", "reset":
		if mode := str("mode"); mode != "" && (server == "git" || strings.HasPrefix(verb, "git")) {
			argv := []string{"git", "reset", "--" + mode}
			if t := str("target", "commit", "ref"); t != "" {
				argv = append(argv, t)
			}
			return argv, true
		}
	case "update_ref":
		// GitHub's update_ref with force moves a branch anywhere: a
		// forced push of that branch.
		if r := str("ref"); r != "" && flag("force") {
			return []string{"git", "push", "--force", "origin", strings.TrimPrefix(r, "heads/")}, true
		}
	case "execute_command", "run_command":
		if strings.Contains(server, "redis") {
			if c := str("command"); c != "" {
				argv := []string{"redis-cli"}
				if u := str("url", "uri"); u != "" {
					argv = append(argv, "-u", u)
				}
				return append(argv, strings.Fields(c)...), true
			}
		}
	}
	return nil, false
}

// mcpPrograms are the command-line programs behind MCP tools and servers
// that take an argument array.
var mcpPrograms = map[string]string{
	"kubectl": "kubectl", "kubernetes": "kubectl", "k8s": "kubectl", "helm": "helm",
	"docker": "docker", "git": "git", "aws": "aws", "gcloud": "gcloud", "az": "az", "azure": "az",
	"terraform": "terraform",
}

// mcpEditedText is what an MCP filesystem edit_file call writes: the new
// text of each of its edits.
func mcpEditedText(m ledger.ArgsObject) string {
	var b strings.Builder
	if edits, ok := m["edits"].([]any); ok {
		for _, e := range edits {
			if em, ok := e.(map[string]any); ok {
				if nt, ok := em["newText"].(string); ok {
					b.WriteString(nt + "\n")
				}
			}
		}
	}
	return b.String()
}
