package shell

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ledger-audit/ledger-audit/internal/refilter"
	"gopkg.in/yaml.v3"
)

// ansibleModuleArgs is what a module task amounts to as commands, its
// arguments read through arg: slurp and fetch of a file are a read
// (cat); file with state=absent removes the path with all it holds; a
// service stopped, disabled or masked is the systemctl command (falco,
// auditd: a security control off); ufw disabled is "ufw disable"; a
// cron job is a crontab entry; lineinfile and blockinfile append to
// their file; a PostgreSQL or MySQL database set absent is dropped.
func ansibleModuleArgs(module string, arg func(string) string) []string {
	module = module[strings.LastIndexByte(module, '.')+1:]
	switch module {
	case "fetch", "slurp":
		// The file is read on the host and handed back to the controller.
		if src := arg("src"); src != "" {
			return []string{"cat " + quote(src)}
		}
	case "file":
		p := arg("path")
		if p == "" {
			p = arg("dest")
		}
		if p != "" && arg("state") == "absent" {
			return []string{"rm -rf " + quote(p)}
		}
	case "service", "systemd", "systemd_service", "sysvinit":
		name := arg("name")
		if name == "" {
			return nil
		}
		var out []string
		if arg("state") == "stopped" {
			out = append(out, "systemctl stop "+quote(name))
		}
		switch strings.ToLower(arg("enabled")) {
		case "false", "no":
			out = append(out, "systemctl disable "+quote(name))
		}
		if m := strings.ToLower(arg("masked")); m == "true" || m == "yes" {
			out = append(out, "systemctl mask "+quote(name))
		}
		return out
	case "ufw":
		if arg("state") == "disabled" {
			return []string{"ufw disable"}
		}
	case "cron":
		if job := arg("job"); job != "" && arg("state") != "absent" {
			sched := strings.Join([]string{orStar(arg("minute")), orStar(arg("hour")), orStar(arg("day")), orStar(arg("month")), orStar(arg("weekday"))}, " ")
			if s := arg("special_time"); s != "" {
				sched = "@" + s
			}
			return []string{"echo " + quote(sched+" "+job) + " | crontab -"}
		}
	case "lineinfile", "blockinfile":
		p, line := arg("path"), arg("line")
		if p == "" {
			p = arg("dest")
		}
		if module == "blockinfile" {
			line = arg("block")
		}
		if p != "" && line != "" && arg("state") != "absent" {
			return []string{"printf '%s\\n' " + quote(line) + " >> " + quote(p)}
		}
	case "postgresql_db", "mysql_db":
		name := arg("name")
		if name == "" || arg("state") != "absent" {
			return nil
		}
		host := ""
		if h := arg("login_host"); h != "" {
			host = " -h " + quote(h)
		}
		if module == "mysql_db" {
			return []string{"mysql" + host + " -e " + quote("DROP DATABASE "+name)}
		}
		return []string{"dropdb" + host + " " + quote(name)}
	}
	return nil
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// playbookModuleCommands reads a playbook's module tasks written as
// YAML mappings ("ansible.builtin.slurp:\n  src: /etc/shadow") through
// ansibleModuleArgs. "{{ var }}" takes the play's own vars (and the
// home directory's usual spellings); other templates stay as written.
func playbookModuleCommands(content string) []string {
	var plays []map[string]any
	if yaml.Unmarshal([]byte(content), &plays) != nil {
		return nil
	}
	var out []string
	for _, play := range plays {
		vars := map[string]string{"ansible_env.HOME": "~", "lookup('env', 'HOME')": "~"}
		if vm, ok := play["vars"].(map[string]any); ok {
			for k, v := range vm {
				vars[k] = scalarString(v)
			}
		}
		var tasks []any
		for _, key := range []string{"pre_tasks", "tasks", "post_tasks", "handlers"} {
			if l, ok := play[key].([]any); ok {
				tasks = append(tasks, l...)
			}
		}
		for i := 0; i < len(tasks) && i < 256 && len(out) < 32; i++ {
			t, ok := tasks[i].(map[string]any)
			if !ok {
				continue
			}
			if blk, ok := t["block"].([]any); ok {
				tasks = append(tasks, blk...)
			}
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch mod := k[strings.LastIndexByte(k, '.')+1:]; v := t[k].(type) {
				case string:
					// ansible.builtin.command: wipefs -a /dev/sdb
					if mod == "shell" || mod == "command" || mod == "raw" {
						out = append(out, ansibleTemplate(v, vars))
					}
					continue
				}
				if args, ok := t[k].(map[string]any); ok {
					out = append(out, ansibleModuleArgs(k, func(name string) string {
						return ansibleTemplate(scalarString(args[name]), vars)
					})...)
				}
			}
		}
	}
	return out
}

// scalarString is a YAML scalar as its text ("" for anything else).
func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	}
	return ""
}

// ansibleTemplateRe is a Jinja expression, "{{ name }}".
var ansibleTemplateRe = refilter.MustCompile(`\{\{\s*([^}]+?)\s*\}\}`)

func ansibleTemplate(s string, vars map[string]string) string {
	return ansibleTemplateRe.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[strings.TrimSpace(m[2:len(m)-2])]; ok {
			return v
		}
		return m
	})
}
