package shell

import (
	"fmt"
	"reflect"
	"testing"
)

func TestRemoteShells(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"gcloud", []string{"compute", "ssh", "web-1", "--zone", "z", "--command", "uptime"}, []string{"uptime"}},
		{"gcloud", []string{"compute", "ssh", "web-1", "--command=df -h"}, []string{"df -h"}},
		{"gcloud", []string{"compute", "instances", "list", "--command", "x"}, nil},
		{"vagrant", []string{"ssh", "-c", "make test"}, []string{"make test"}},
		{"vagrant", []string{"up"}, nil},
		{"az", []string{"vm", "run-command", "invoke", "-g", "rg", "--scripts", "a b", "c", "--command-id", "RunShellScript"}, []string{"a b", "c"}},
		{"aws", []string{"ssm", "send-command", "--parameters", "commands=rm -rf /srv"}, []string{"rm -rf /srv"}},
		{"aws", []string{"ssm", "send-command", "--parameters", `commands=["df -h","uptime"]`}, []string{"df -h", "uptime"}},
		{"aws", []string{"ssm", "send-command", "--parameters", "commands=[df -h,uptime]"}, []string{"df -h", "uptime"}},
		{"aws", []string{"ssm", "send-command", "--parameters", `{"commands":["ls /"]}`}, []string{"ls /"}},
		{"aws", []string{"ssm", "send-command", "--parameters", `{"commands":`}, nil},
		{"aws", []string{"ssm", "get-command-invocation", "--parameters", "commands=x"}, nil},
		{"aws", []string{"ssm", "start-session", "--target", "i-1", "--document-name", "AWS-StartInteractiveCommand", "--parameters", "command=systemctl stop falcon-sensor"}, []string{"systemctl stop falcon-sensor"}},
		{"aws", []string{"ssm", "start-session", "--target", "i-1"}, nil},
		{"aws", []string{"ecs", "execute-command", "--cluster", "c", "--task", "t", "--interactive", "--command", "python manage.py migrate"}, []string{"python manage.py migrate"}},
		{"fly", []string{"ssh", "console", "-a", "api", "-C", "rm -rf /data"}, []string{"rm -rf /data"}},
		{"fly", []string{"deploy", "-C", "x"}, nil},
		{"heroku", []string{"run", "-a", "acme-prod", "bin/rails", "db:drop"}, []string{"bin/rails db:drop"}},
		{"heroku", []string{"logs", "-a", "acme-prod"}, nil},
		{"knife", []string{"ssh", "role:web", "-x", "ops", "sudo chef-client", "-C", "5"}, []string{"sudo chef-client"}},
		{"knife", []string{"ssh", "-x", "ops", "-a", "ipaddress", "name:db-*", "uptime"}, []string{"uptime"}},
		{"knife", []string{"ssh", "role:web", "tmux", "-x", "ops"}, nil},
		{"knife", []string{"node", "list"}, nil},
		{"govc", []string{"guest.run", "-vm", "web1", "-l", "root:pw", "systemctl", "restart", "nginx"}, []string{"systemctl restart nginx"}},
		{"govc", []string{"guest.ls", "-vm", "web1", "/tmp"}, nil},
	}
	for _, c := range cases {
		if got := remoteShells(c.name, c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("remoteShells(%s %q) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}

func TestContainerCopy(t *testing.T) {
	cases := []struct {
		prog     string
		args     []string
		src, dst string
		ok       bool
	}{
		{"kubectl", []string{"cp", "./p.sh", "prod/api-0:/tmp/p.sh"}, "./p.sh", "/tmp/p.sh", true},
		{"kubectl", []string{"cp", "-n", "prod", "api-0:/etc/app.conf", "app.conf", "-c", "api"}, "/etc/app.conf", "app.conf", true},
		{"docker", []string{"cp", "app:/app/logs", "./logs"}, "/app/logs", "./logs", true},
		{"docker", []string{"cp", "-a", "./a", "b:/x"}, "./a", "/x", true},
		{"docker", []string{"cp", "./a"}, "", "", false},
		{"docker", []string{"run", "a", "b"}, "", "", false},
	}
	for _, c := range cases {
		src, dst, ok := containerCopy(c.prog, c.args)
		if src != c.src || dst != c.dst || ok != c.ok {
			t.Errorf("containerCopy(%s %q) = %q, %q, %v; want %q, %q, %v", c.prog, c.args, src, dst, ok, c.src, c.dst, c.ok)
		}
	}
}

func TestComposeExec(t *testing.T) {
	cases := []struct {
		args []string
		svc  string
		want []string
	}{
		{[]string{"-f", "prod.yml", "exec", "db", "dropdb", "app"}, "db", []string{"dropdb", "app"}},
		{[]string{"-p", "shop-prod", "exec", "-T", "-u", "postgres", "db", "psql"}, "db", []string{"psql"}},
		{[]string{"--file=compose.production.yml", "exec", "db", "psql"}, "db", []string{"psql"}},
		{[]string{"exec", "-T", "redis", "redis-cli", "FLUSHALL"}, "", nil},
		{[]string{"run", "--rm", "-e", "RAILS_ENV=test", "web", "bin/rails", "db:drop"}, "", nil},
		{[]string{"run", "--rm", "-e", "RAILS_ENV=production", "--env=X=1", "web", "bin/rails", "db:drop"}, "web", []string{"env", "RAILS_ENV=production", "X=1", "bin/rails", "db:drop"}},
		{[]string{"-f", "prod.yml", "exec", "db"}, "", nil},
		{[]string{"up", "-d", "db"}, "", nil},
		{[]string{"logs", "web"}, "", nil},
	}
	for _, c := range cases {
		svc, got := composeExec(c.args)
		if svc != c.svc || !reflect.DeepEqual(got, c.want) {
			t.Errorf("composeExec(%q) = %q, %q; want %q, %q", c.args, svc, got, c.svc, c.want)
		}
	}
}

func TestHostDevice(t *testing.T) {
	for a, want := range map[string]bool{"/dev/sda": true, "of=/dev/nvme0n1": true, "/dev/null": false, "/dev/urandom": false, "if=/dev/zero": false, "/dev/": false, "/srv/dev/x": false, "/tmp/x": false} {
		if got := hostDevice(a); got != want {
			t.Errorf("hostDevice(%q) = %v, want %v", a, got, want)
		}
	}
}

func TestKubectlRunHostPaths(t *testing.T) {
	ov := `{"spec":{"volumes":[{"name":"h","hostPath":{"path":"/"}},{"name":"c","configMap":{"name":"x"}}],"containers":[{"name":"w","image":"alpine",%s"volumeMounts":[{"name":"h","mountPath":"/h"},{"name":"c","mountPath":"/cfg"}]}]}}`
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "w", "--image=alpine", "--overrides=" + fmt.Sprintf(ov, `"command":["rm","-rf","/h/etc"],`)}, []string{"rm", "-rf", "/etc"}},
		{[]string{"run", "w", "--overrides", fmt.Sprintf(ov, ""), "--", "cat", "/h/root/.ssh/id_rsa"}, []string{"cat", "/root/.ssh/id_rsa"}},
		{[]string{"run", "w", "--overrides", `{"spec":{"containers":[{"command":["rm","-rf","/"]}]}}`}, nil},
		{[]string{"run", "w", "--image=alpine", "--", "rm", "-rf", "/"}, nil},
		{[]string{"run", "w", "--overrides", "{not json"}, nil},
		{[]string{"get", "pods"}, nil},
	}
	for _, c := range cases {
		if got := kubectlRunHostPaths(c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("kubectlRunHostPaths(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestKamalRemoteShells checks that Kamal's exec commands hand their
// command line to the servers' shells, after Kamal's options.
func TestKamalRemoteShells(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"app", "exec", "-d", "production", "--reuse", "env | sort"}, []string{"env | sort"}},
		{[]string{"server", "exec", "sudo ufw disable"}, []string{"sudo ufw disable"}},
		{[]string{"accessory", "exec", "redis", "-d", "production", "redis-cli FLUSHALL"}, []string{"redis-cli FLUSHALL"}},
		{[]string{"app", "logs", "-d", "production"}, nil},
	} {
		if got := remoteShells("kamal", c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("kamal %q: %q, want %q", c.args, got, c.want)
		}
	}
}
