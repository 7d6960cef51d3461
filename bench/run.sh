#!/usr/bin/env bash
# bench/run.sh — ledger-audit at scale, against a raw SQLite baseline.
#
# Builds ledger-audit once, generates synthetic ledgers (10k, 100k and 1M
# calls by default; cached between runs), and for each size times, in the
# same run and with the same warm page cache:
#   raw     sqlite3 FILE 'SELECT * FROM events' > /dev/null
#   audit   ledger-audit audit --format json FILE > /dev/null
#           (falls back to the Reader.Scan benchmark while there is no audit)
#   verify  ledger-audit verify FILE (the hash-chain walk)
# and prints a Markdown table: wall and CPU seconds, the audit/raw ratios,
# microseconds per call (flat when growth is linear), peak RSS. Then the
# policy-matching benchmarks, and bench/capture.sh when present.
#
# Targets (issue 6): audit on 1M calls within 3x the raw scan, linear
# growth, peak RSS <= 300 MB.
#
# usage: bench/run.sh
# env:   BENCH_SIZES="10000 100000 1000000"  BENCH_DIR=/tmp/ledger-audit-bench
#        BENCH_RUNS=3 (repetitions for sizes up to 100k; 1M runs once)
#        BENCH_CAPTURE=0 skips bench/capture.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
sizes="${BENCH_SIZES:-10000 100000 1000000}"
data="${BENCH_DIR:-${TMPDIR:-/tmp}/ledger-audit-bench}"
runs="${BENCH_RUNS:-3}"
now="2026-12-31T00:00:00Z" # fixed clock: every run audits the same thing
mkdir -p "$data"

# The baseline and the RSS measurement need the sqlite3 CLI and GNU time.
need() {
	local cmd="$1" pkg="$2"
	if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "$cmd" ]; then
		echo "installing $pkg (for $cmd)..." >&2
		if command -v apt-get >/dev/null 2>&1; then
			${SUDO:-} apt-get install -y -qq "$pkg" >/dev/null || { ${SUDO:-} apt-get update -qq && ${SUDO:-} apt-get install -y -qq "$pkg" >/dev/null; }
		else
			echo "bench/run.sh: $cmd is missing and apt-get is not available; install $pkg" >&2
			exit 2
		fi
	fi
}
[ "$(id -u)" = 0 ] || SUDO=sudo
need sqlite3 sqlite3
need /usr/bin/time time

bin="$data/ledger-audit"
echo "building ledger-audit..." >&2
(cd "$root" && go build -o "$bin" ./cmd/ledger-audit)
have_audit=1
"$bin" audit --help >/dev/null 2>&1 || have_audit=0
if [ "$have_audit" = 0 ]; then # until audit exists: the Reader.Scan benchmark
	(cd "$root" && go test -c -o "$data/ledger.test" ./ledger)
fi

# timed CMD... : runs CMD under GNU time; sets wall, cpu (user+sys), rss_mb.
timed() {
	local out="$data/.time"
	/usr/bin/time -f '%e %U %S %M' -o "$out" "$@" >/dev/null 2>"$data/.stderr" || {
		echo "bench/run.sh: failed: $*" >&2
		cat "$data/.stderr" >&2
		exit 1
	}
	read -r wall user sys rss <"$out"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
	rss_mb=$(awk -v k="$rss" 'BEGIN{printf "%.0f", k/1024}')
}

# best RUNS CMD... : the fastest of RUNS runs (wall), with its cpu and rss.
best() {
	local n="$1" i bw= bc= br=
	shift
	for ((i = 0; i < n; i++)); do
		timed "$@"
		if [ -z "$bw" ] || awk -v a="$wall" -v b="$bw" 'BEGIN{exit !(a<b)}'; then
			bw=$wall bc=$cpu br=$rss_mb
		fi
	done
	wall=$bw cpu=$bc rss_mb=$br
}


cpu_model=$(awk -F: '/model name/{gsub(/^ +/,"",$2); print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
mem=$(awk '/MemTotal/{printf "%.1f GB", $2/1048576}' /proc/meminfo 2>/dev/null || echo unknown)
echo "## ledger-audit benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "- machine: $(nproc) cores ($cpu_model), $mem RAM, $(uname -sr)"
echo "- $(go version | cut -d' ' -f3-), sqlite3 CLI $(sqlite3 --version | cut -d' ' -f1)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: compare the ratios, measured in the same run)"
echo

rows=()
for n in $sizes; do
	f="$data/synth-$n.db"
	if [ ! -f "$f" ]; then
		sessions=$((n / 500))
		[ "$sessions" -ge 10 ] || sessions=10
		echo "generating $n calls ($sessions sessions)..." >&2
		timed "$bin" sample synth --calls "$n" --sessions "$sessions" --seed 1 -o "$f"
		echo "- generated $n calls in ${wall}s (CPU ${cpu}s)"
	fi
	r=$runs
	[ "$n" -lt 1000000 ] || r=1
	size_mb=$(du -m "$f" | cut -f1)
	nrows=$(sqlite3 "$f" 'SELECT count(*) FROM events')
	sqlite3 "$f" 'SELECT * FROM events' >/dev/null # warm the page cache for both sides
	echo "measuring $n calls..." >&2
	best "$r" sqlite3 "$f" 'SELECT * FROM events'
	raw_wall=$wall raw_cpu=$cpu
	if [ "$have_audit" = 1 ]; then
		best "$r" "$bin" audit --now "$now" --format json "$f"
		what=audit
	else
		best "$r" env LEDGER_BENCH_FILE="$f" "$data/ledger.test" -test.run '^$' -test.bench '^BenchmarkScan$' -test.benchtime 1x
		what="Reader.Scan"
	fi
	a_wall=$wall a_cpu=$cpu a_rss=$rss_mb
	best "$r" "$bin" verify "$f"
	v_wall=$wall
	ratio=$(awk -v a="$a_wall" -v b="$raw_wall" 'BEGIN{printf "%.1f", a/b}')
	cratio=$(awk -v a="$a_cpu" -v b="$raw_cpu" 'BEGIN{printf "%.1f", (b>0)?a/b:0}')
	us=$(awk -v a="$a_cpu" -v n="$n" 'BEGIN{printf "%.1f", a*1e6/n}')
	rows+=("| $n | $nrows | $size_mb | $raw_wall | $a_wall | **$ratio×** | $raw_cpu | $a_cpu | $cratio× | $us | $a_rss | $v_wall |")
done
echo
echo "$what vs the raw scan (best of $runs runs below 1M calls; seconds):"
echo
echo "| calls | rows | file MB | raw wall | $what wall | ratio | raw CPU | $what CPU | CPU ratio | $what CPU µs/call | $what peak RSS MB | verify wall |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

if grep -qs '^func Benchmark' "$root"/rules/policy/*_test.go; then
	echo
	echo "### Policy matching (go test -bench ./rules/policy)"
	echo
	echo '```'
	(cd "$root" && go test -run '^$' -bench . -benchmem ./rules/policy | grep -E '^(Benchmark|cpu:)')
	echo '```'
fi

if [ -f "$root/bench/capture.sh" ] && [ "${BENCH_CAPTURE:-1}" != 0 ]; then
	echo
	echo "### Capture latency (bench/capture.sh)"
	echo
	echo '```'
	bash "$root/bench/capture.sh"
	echo '```'
fi
