package shell

import (
	"strings"
	"testing"
)

// TestGuestAndRemoteExec checks that commands handed to a guest, an
// allocation, an OpenShift pod or a Fly machine are walked as commands,
// with the wrapper in their via chain.
func TestGuestAndRemoteExec(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`pct exec 205 -- bash -c "rm -rf /srv"`, "rm -rf /srv [pct exec > bash -c]"},
		{`qm guest exec 101 -- cat /etc/shadow`, "cat /etc/shadow [qm exec]"},
		{`qm guest exec 101 cat /etc/shadow`, "cat /etc/shadow [qm exec]"},
		{`lxc exec web1 -- rm -rf /var/www`, "rm -rf /var/www [lxc exec]"},
		{`incus exec c1 -- ls /`, "ls / [incus exec]"},
		{`lxc-attach -n c1 -- rm -rf /data`, "rm -rf /data [lxc-attach exec]"},
		{`nomad alloc exec -task web 3f9c2a1e cat /secrets/token`, "cat /secrets/token [nomad exec]"},
		{`oc exec -n prod db-0 -- psql -c 'DROP DATABASE app'`, "psql -c 'DROP DATABASE app' [oc exec prod/db-0]"},
		{`oc debug node/n1 -- chroot /host rm -rf /var/lib/etcd`, "rm -rf /var/lib/etcd [oc exec]"},
		{`fly ssh console -a app -C "cat /app/releases/COOKIE"`, "cat /app/releases/COOKIE [fly remote command]"},
	} {
		got := strings.Join(cmds(t, tc.src, nil), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant a line %q", tc.src, got, tc.want)
		}
	}
	// Not a guest's command: options and listings of the same tools.
	for _, src := range []string{`pct list`, `qm guest cmd 101 ping`, `nomad alloc status 3f9c`, `lxc list`} {
		if got := cmds(t, src, nil); len(got) != 1 {
			t.Errorf("%s: want only the command itself, got %q", src, got)
		}
	}
}

// TestLoopVariableSources checks that a for loop over a command
// substitution gives its variable the substitution's commands as
// sources, as an assignment from it does.
func TestLoopVariableSources(t *testing.T) {
	cs, _ := Parse(`for v in $(docker volume ls -q); do docker volume rm $v; done`, nil)
	var rm *Command
	for i := range cs {
		if cs[i].Name == "docker" && strings.Contains(strings.Join(cs[i].Args, " "), "volume rm") {
			rm = &cs[i]
		}
	}
	if rm == nil {
		t.Fatalf("no docker volume rm in %v", cs)
	}
	found := false
	for _, s := range rm.ArgsFrom {
		if s.Name == "docker" && strings.Contains(strings.Join(s.Args, " "), "volume ls") {
			found = true
		}
	}
	if !found {
		t.Errorf("docker volume rm $v: ArgsFrom = %+v, want the docker volume ls listing", rm.ArgsFrom)
	}
}
