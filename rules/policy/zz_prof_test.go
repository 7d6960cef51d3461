package policy

import (
	"database/sql"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/ledger-audit/ledger-audit/rules/shell"
	_ "github.com/mattn/go-sqlite3"
)

func TestZZProf(t *testing.T) {
	p := os.Getenv("ZZ_LEDGER")
	if p == "" {
		t.Skip()
	}
	db, _ := sql.Open("sqlite3", "file:"+p+"?mode=ro")
	rows, err := db.Query("select tool_name, args_json from events where kind='issued' limit 100000")
	if err != nil {
		t.Fatal(err)
	}
	type call struct{ tool, args string }
	var calls []call
	for rows.Next() {
		var c call
		rows.Scan(&c.tool, &c.args)
		calls = append(calls, c)
	}
	d, _ := Builtin("default")
	s, _ := Builtin("strict")
	e := NewEngine(d, s)
	ix := e.idx()
	cost := map[string]time.Duration{}
	var extractT time.Duration
	byTool := map[string]time.Duration{}
	for _, c := range calls {
		t0 := time.Now()
		cmds, _, _ := extract(shell.NewState(), c.tool, c.args, nil)
		extractT += time.Since(t0)
		byTool[c.tool] += time.Since(t0)
		for i := range cmds {
			v := newView(&cmds[i])
			refs := append(append([]mref{}, ix.byProg[v.c.Name]...), ix.wild...)
			for _, ref := range refs {
				t1 := time.Now()
				ref.m.matchCommand(v)
				cost[ref.rule.ID] += time.Since(t1)
				byTool[c.tool] += time.Since(t1)
			}
		}
	}
	type kv struct {
		k string
		v time.Duration
	}
	var l []kv
	for k, v := range cost {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	fmt.Println("extract", extractT)
	for _, x := range l[:15] {
		fmt.Println(x.k, x.v)
	}
	for k, v := range byTool {
		fmt.Println(k, v)
	}
}
