package shell

import (
	"encoding/json"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// remoteShells returns the shell lines a cloud or VM CLI hands to a
// machine's shell, as ssh's remote command is: "gcloud compute ssh HOST
// --command CMD", "az vm run-command invoke --scripts CMD...", "aws ssm
// send-command --document-name AWS-RunShellScript --parameters
// commands=CMD", "vagrant ssh -c CMD". The machine being elsewhere does
// not make deleting its disks or piping a download into its shell safer.
func remoteShells(name string, f []string) []string {
	switch name {
	case "gcloud":
		if len(f) >= 2 && f[0] == "compute" && (f[1] == "ssh" || f[1] == "tpus" || f[1] == "tpu-vm") || len(f) >= 3 && f[0] == "alpha" && f[1] == "compute" && f[2] == "ssh" {
			if cmds := optValues(f, "--command"); len(cmds) > 0 {
				return cmds
			}
			// "gcloud compute ssh VM -- CMD": the words after "--" go
			// to ssh, whose remote command they are.
			if i := slices.Index(f, "--"); i >= 0 && i+1 < len(f) && f[1] == "ssh" {
				if rest := f[i+1:]; !strings.HasPrefix(rest[0], "-") {
					return []string{strings.Join(rest, " ")}
				}
			}
		}
	case "vagrant":
		if len(f) >= 1 && f[0] == "ssh" {
			return optValues(f, "-c", "--command")
		}
	case "hcloud":
		// "hcloud server ssh SERVER -- CMD": ssh's remote command.
		if i := slices.Index(f, "--"); len(f) >= 3 && f[0] == "server" && f[1] == "ssh" && i >= 0 && i+1 < len(f) {
			return []string{strings.Join(f[i+1:], " ")}
		}
	case "zowe":
		// "zowe zos-uss issue ssh CMD": CMD runs in z/OS UNIX's shell.
		if len(f) >= 4 && (f[0] == "zos-uss" || f[0] == "uss") && (f[1] == "issue" || f[1] == "iss") && f[2] == "ssh" && !strings.HasPrefix(f[3], "-") {
			return []string{f[3]}
		}
	case "kamal":
		// "kamal app exec -d production 'CMD'", "kamal server exec CMD",
		// "kamal accessory exec redis CMD": CMD runs on the servers (in
		// the app's or accessory's containers, or on the hosts).
		if len(f) >= 3 && (f[0] == "app" || f[0] == "server") && f[1] == "exec" {
			return restAfterOpts(f, 2, kamalValued)
		}
		if len(f) >= 4 && f[0] == "accessory" && f[1] == "exec" {
			return restAfterOpts(f, 3, kamalValued)
		}
	case "doctl":
		// "doctl compute ssh DROPLET --ssh-command CMD".
		if len(f) >= 2 && f[0] == "compute" && f[1] == "ssh" {
			return optValues(f, "--ssh-command")
		}
	case "parallel-ssh", "pssh", "pdsh", "clush":
		// Fleet shells: the first word after the options is the command
		// every host runs.
		return restAfterOpts(f, 0, psshValued)
	case "knife":
		// Chef's "knife ssh QUERY CMD" and "knife winrm QUERY CMD": CMD
		// runs on every node the search query finds. Options may come
		// before, between or after the two words.
		if len(f) >= 3 && (f[0] == "ssh" || f[0] == "winrm") {
			pos := knifeWords(f)
			// (The second word may name a terminal multiplexer to open
			// on every node instead: interactive, screen, tmux, cssh.)
			if len(pos) >= 2 {
				switch pos[1] {
				case "interactive", "screen", "tmux", "macterm", "cssh", "csshx":
				default:
					return []string{pos[1]}
				}
			}
		}
	case "govc":
		// "govc guest.run -vm VM PROG ARGS...": VMware Tools runs PROG in
		// the guest, as ssh runs a remote command.
		if len(f) >= 2 && (f[0] == "guest.run" || f[0] == "guest.start") {
			return restAfterOpts(f, 1, govcValued)
		}
	case "acli":
		// Acquia's CLI: "acli remote:ssh ALIAS -- CMD" runs CMD on the
		// environment, "acli remote:drush ALIAS -- ARGS" runs drush there.
		if i := slices.Index(f, "--"); len(f) >= 3 && i >= 0 && i+1 < len(f) {
			switch f[0] {
			case "remote:ssh", "ssh":
				return []string{strings.Join(f[i+1:], " ")}
			case "remote:drush", "drush":
				return []string{"drush " + strings.Join(f[i+1:], " ")}
			}
		}
	case "terminus":
		// Pantheon's CLI: "terminus drush SITE.ENV -- ARGS" and
		// "terminus wp SITE.ENV -- ARGS" run there.
		if len(f) >= 3 && (f[0] == "drush" || f[0] == "wp" || f[0] == "remote:drush" || f[0] == "remote:wp") {
			if i := slices.Index(f, "--"); i >= 0 && i+1 < len(f) {
				return []string{strings.TrimPrefix(f[0], "remote:") + " " + strings.Join(f[i+1:], " ")}
			}
		}
	case "fly", "flyctl":
		if len(f) >= 2 && f[0] == "ssh" && f[1] == "console" {
			return optValues(f, "-C", "--command")
		}
	case "heroku":
		// heroku run [-a APP] CMD...: a one-off dyno runs CMD.
		if len(f) >= 2 && (f[0] == "run" || f[0] == "run:detached") {
			var words []string
			for i := 1; i < len(f); i++ {
				switch {
				case f[i] == "-a" || f[i] == "--app" || f[i] == "-r" || f[i] == "--remote" || f[i] == "-s" || f[i] == "--size" || f[i] == "-e" || f[i] == "--env":
					i++
				case strings.HasPrefix(f[i], "-") && len(words) == 0:
				default:
					words = append(words, f[i])
				}
			}
			if len(words) > 0 {
				return []string{strings.Join(words, " ")}
			}
		}
	case "az":
		if len(f) >= 3 && (f[0] == "vm" || f[0] == "vmss") && f[1] == "run-command" && (f[2] == "invoke" || f[2] == "create") {
			return optListValues(f, "--scripts")
		}
	case "aws":
		// start-session with AWS-StartInteractiveCommand runs its
		// "command" parameter the same way.
		if len(f) >= 2 && f[0] == "ecs" && f[1] == "execute-command" {
			// ECS Exec runs --command in a task's container.
			return optValues(f, "--command")
		}
		if len(f) >= 2 && f[0] == "ssm" && (f[1] == "send-command" || f[1] == "start-session") {
			var out []string
			for _, p := range optValues(f, "--parameters") {
				out = append(out, ssmCommands(p)...)
			}
			return out
		}
	}
	return nil
}

// knifeValued are the options of knife ssh and knife winrm that take a
// value.
var knifeValued = map[string]bool{"-a": true, "--attribute": true, "-C": true, "--concurrency": true, "-x": true, "--ssh-user": true,
	"-P": true, "--ssh-password": true, "-p": true, "--ssh-port": true, "-G": true, "--ssh-gateway": true, "-i": true,
	"--ssh-identity-file": true, "-c": true, "--config": true, "-u": true, "--user": true, "-k": true, "--key": true,
	"-s": true, "--server-url": true, "-E": true, "--environment": true, "-F": true, "--format": true,
	"--ssh-gateway-identity": true, "--prefix-attribute": true, "--winrm-user": true, "--winrm-password": true}

// psshValued are the options of the fleet shells (pssh, pdsh, clush)
// that take a value.
var psshValued = map[string]bool{"-h": true, "-H": true, "-l": true, "-p": true, "-t": true, "-o": true, "-e": true, "-x": true, "-X": true,
	"-O": true, "-w": true, "-R": true, "-f": true, "-g": true, "-u": true, "--hosts": true, "--host": true, "--user": true, "--par": true, "--timeout": true}

// restAfterOpts joins the words from the first one at or after start that
// is neither an option nor an option's value: the command a remote
// runner hands on. Nil when there is none.
func restAfterOpts(f []string, start int, valued map[string]bool) []string {
	for i := start; i < len(f); i++ {
		switch {
		case valued[f[i]]:
			i++
		case strings.HasPrefix(f[i], "-"):
		default:
			return []string{strings.Join(f[i:], " ")}
		}
	}
	return nil
}

// kamalValued are Kamal's options that take a value.
var kamalValued = map[string]bool{"-d": true, "--destination": true, "-r": true, "--roles": true, "-h": true, "--hosts": true,
	"-c": true, "--config-file": true, "--version": true}

// govcValued are the options of govc guest.run and guest.start that take
// a value.
var govcValued = map[string]bool{"-vm": true, "-l": true, "-e": true, "-C": true, "-d": true, "-dc": true, "-u": true, "-i": true}

// knifeWords are the words of "knife ssh|winrm ..." that are not options
// or option values: the search query, then the command.
func knifeWords(f []string) []string {
	var pos []string
	for i := 1; i < len(f); i++ {
		switch {
		case knifeValued[f[i]]:
			i++
		case strings.HasPrefix(f[i], "-"):
		default:
			pos = append(pos, f[i])
		}
	}
	return pos
}

// remoteHost is the machine a cloud or VM CLI's remote command runs on:
// gcloud compute ssh's instance, the VM of az vm run-command (--name),
// the targets of aws ssm send-command (--instance-ids, --targets).
func remoteHost(name string, f []string) string {
	switch name {
	case "gcloud", "vagrant":
		for i, a := range f {
			if a == "ssh" {
				for _, h := range f[i+1:] {
					if !strings.HasPrefix(h, "-") {
						return h
					}
				}
			}
		}
	case "az":
		return strings.Join(optValues(f, "--name", "-n", "--vm-name"), " ")
	case "fly", "flyctl", "heroku":
		return strings.Join(optValues(f, "-a", "--app"), " ")
	case "aws":
		return strings.Join(optValues(f, "--instance-ids", "--targets", "--cluster"), " ")
	case "knife":
		if len(f) >= 2 && (f[0] == "ssh" || f[0] == "winrm") {
			if pos := knifeWords(f); len(pos) > 0 {
				return pos[0]
			}
		}
	case "acli", "terminus":
		// The site and environment: "acmecorp.prod", "clinic.live".
		if len(f) >= 2 {
			return f[1]
		}
	}
	return ""
}

// optValues returns the values of the named options, given as "--opt V"
// or "--opt=V".
func optValues(f []string, names ...string) []string {
	var out []string
	for i, a := range f {
		for _, n := range names {
			if a == n && i+1 < len(f) {
				out = append(out, f[i+1])
			} else if v, ok := strings.CutPrefix(a, n+"="); ok && strings.HasPrefix(n, "--") {
				out = append(out, v)
			}
		}
	}
	return out
}

// optListValues is optValues for an option that takes every word up to
// the next option (az's "--scripts 'cmd 1' 'cmd 2'").
func optListValues(f []string, name string) []string {
	var out []string
	for i := 0; i < len(f); i++ {
		if v, ok := strings.CutPrefix(f[i], name+"="); ok {
			out = append(out, v)
			continue
		}
		if f[i] != name {
			continue
		}
		for i++; i < len(f) && !strings.HasPrefix(f[i], "--"); i++ {
			out = append(out, f[i])
		}
		i--
	}
	return out
}

// ssmCommands reads the commands of an SSM shell document's parameters,
// in the CLI's shorthand (commands=CMD, commands=["a","b"],
// commands=[a,b]) or as JSON ({"commands":["a","b"]}); "command" is the
// interactive-command document's name for it.
func ssmCommands(p string) []string {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "{") {
		var doc map[string][]string
		if json.Unmarshal([]byte(p), &doc) == nil {
			return append(doc["commands"], doc["command"]...)
		}
		return nil
	}
	v, ok := strings.CutPrefix(p, "commands=")
	if !ok {
		if v, ok = strings.CutPrefix(p, "command="); !ok {
			return nil
		}
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		var list []string
		if json.Unmarshal([]byte(v), &list) == nil {
			return list
		}
		// The shorthand list: [cmd one,cmd two], items unquoted.
		return strings.Split(v[1:len(v)-1], ",")
	}
	return []string{v}
}

// kubectlRunHostPaths is the command of "kubectl run ... --overrides
// JSON" whose pod mounts a node directory (a hostPath volume), with the
// paths under the mount rewritten to the node's: the override
// '{"spec":{"volumes":[{"name":"h","hostPath":{"path":"/"}}],
// "containers":[{"command":["rm","-rf","/h/etc"],"volumeMounts":
// [{"name":"h","mountPath":"/h"}]}]}}' deletes the node's /etc. Like
// docker run without a bind mount, a pod without one only touches
// itself, and nil is returned.
func kubectlRunHostPaths(f []string) []string {
	if len(f) == 0 || f[0] != "run" {
		return nil
	}
	var argv []string
	for i, a := range f {
		if a == "--" {
			argv = f[i+1:]
			break
		}
	}
	overrides := optValues(f[:len(f)-len(argv)], "--overrides")
	var doc struct {
		Spec podSpec `yaml:"spec"`
	}
	// The override is JSON, which YAML reads.
	if len(overrides) == 0 || yaml.Unmarshal([]byte(overrides[0]), &doc) != nil || len(doc.Spec.Containers) == 0 {
		return nil
	}
	c := doc.Spec.Containers[0]
	if len(c.Command)+len(c.Args) == 0 {
		c.Command = argv // the command after "--", unless the override sets one
	}
	if len(doc.Spec.hostMounts(c)) == 0 {
		return nil
	}
	cmds := podSpec{Volumes: doc.Spec.Volumes, Containers: []podContainer{c}}.commands()
	if len(cmds) == 0 {
		return nil
	}
	return cmds[0]
}
