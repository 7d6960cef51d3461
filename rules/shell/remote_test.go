package shell

import (
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
		{"fly", []string{"ssh", "console", "-a", "api", "-C", "rm -rf /data"}, []string{"rm -rf /data"}},
		{"fly", []string{"deploy", "-C", "x"}, nil},
		{"heroku", []string{"run", "-a", "acme-prod", "bin/rails", "db:drop"}, []string{"bin/rails db:drop"}},
		{"heroku", []string{"logs", "-a", "acme-prod"}, nil},
	}
	for _, c := range cases {
		if got := remoteShells(c.name, c.args); !reflect.DeepEqual(got, c.want) {
			t.Errorf("remoteShells(%s %q) = %q, want %q", c.name, c.args, got, c.want)
		}
	}
}
