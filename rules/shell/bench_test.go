package shell

import "testing"

const cmd200 = `cd /home/dev/projects/api && export GOFLAGS=-mod=mod && go test ./... 2>&1 | tee /tmp/test.log | grep -v '^ok' ; bash -c "rm -rf ./build && mkdir -p build" && echo "$(date +%s) done" >> ci.log`

func BenchmarkParse200(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse(cmd200, nil)
	}
}
