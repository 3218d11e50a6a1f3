#!/usr/bin/env bash
# bench-results.sh - what result files cost, beside benchstat: import +
# compare of two files of N samples (goal: under 0.6 s together for
# 100,000), compare against benchstat on the same samples in Go benchmark
# format, run side by side, alternating (goals: compare's wall time at most
# benchstat's, its max RSS at most twice benchstat's), the same at N2
# samples (goal: linear), and the cost of appending one repetition to a
# file holding 10 or 10,000 (goal: the same). A benchmark run by `make
# bench`, never a timed test. Times depend on the machine's load (printed):
# take them on a quiet machine; max RSS and pages faulted in do not.
#
#   N=100000 N2=1000000 RUNS=3 scripts/bench-results.sh   (N2=0: no second size)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
N2=${N2:-1000000}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -x /usr/bin/time ]; then
	echo "bench-results: needs GNU time (/usr/bin/time) for max RSS: apt-get install time" >&2
	exit 1
fi
benchstat=$(command -v benchstat || true)
if [ -z "$benchstat" ]; then
	benchstat="$(go env GOPATH)/bin/benchstat"
	if [ ! -x "$benchstat" ]; then
		echo "bench-results: installing benchstat (go install golang.org/x/perf/cmd/benchstat@latest)" >&2
		go install golang.org/x/perf/cmd/benchstat@latest
	fi
fi
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
metric='time=took (\d+) ns:ns:lower'

# step NAME CMD...: runs CMD, noting wall time, CPU time (user+sys), max
# RSS and pages faulted in (on this VM a page touched for the first time
# costs about 15 us: memory is time).
step() {
	local name=$1
	shift
	/usr/bin/time -o "$tmp/t" -f '%e %U %S %M %R' "$@" >/dev/null 2>&1 || { echo "bench-results: $name failed: $*" >&2; exit 1; }
	echo "$name|$(cat "$tmp/t")" >>"$tmp/times"
}

# size N: the samples (two logs, imported; the same samples in Go
# benchmark format, as compare --format bench writes them), then RUNS
# rounds of contend compare and benchstat, alternating.
size() {
	local n=$1
	awk -v n="$n" 'BEGIN { srand(1); for (i = 0; i < n; i++) printf "faultme: took %d ns\n", 1000000 + int(rand() * 50000) }' >"$tmp/a.log"
	awk -v n="$n" 'BEGIN { srand(2); for (i = 0; i < n; i++) printf "faultme: took %d ns\n", 1010000 + int(rand() * 50000) }' >"$tmp/b.log"
	rm -f "$tmp/a.jsonl" "$tmp/b.jsonl"
	step "$n import A" "$tmp/contend" import -q --metric "$metric" --out "$tmp/a.jsonl" "$tmp/a.log"
	step "$n import B" "$tmp/contend" import -q --metric "$metric" --out "$tmp/b.jsonl" "$tmp/b.log"
	"$tmp/contend" compare --format bench "$tmp/a.jsonl" "$tmp/b.jsonl" >"$tmp/ab.txt"
	local got
	got=$(grep -c '^Benchmark' "$tmp/ab.txt")
	[ "$got" -eq $((2 * n)) ] || { echo "bench-results: $got samples in Go benchmark format, want $((2 * n))" >&2; exit 1; }
	for _ in $(seq "$RUNS"); do
		step "$n compare" "$tmp/contend" compare "$tmp/a.jsonl" "$tmp/b.jsonl"
		step "$n benchstat" "$benchstat" -col side "$tmp/ab.txt"
	done
}
size "$N"
if [ "$N2" -gt 0 ]; then
	size "$N2"
fi

# The table: each step's median wall and CPU time over its runs, its
# largest max RSS and pages; then contend against benchstat.
awk -F'|' -v n="$N" -v n2="$N2" '
{
	split($1, k, " "); size = k[1]; name = substr($1, length(size) + 2)
	split($2, t, " ")
	key = size SUBSEP name
	runs[key]++
	wall[key, runs[key]] = t[1]; cpu[key, runs[key]] = t[2] + t[3]
	if (t[4] > rss[key]) rss[key] = t[4]
	if (t[5] > pages[key]) pages[key] = t[5]
}
function median(arr, key, m,   i, j, v, x) {
	for (i = 1; i <= m; i++) v[i] = arr[key, i]
	for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
function row(size, name,   key) {
	key = size SUBSEP name
	W[key] = median(wall, key, runs[key]); C[key] = median(cpu, key, runs[key])
	printf "  %-10s %9d  %7.3f s  %7.3f s  %7.1f MB  %8d   (%d run%s)\n", name, size, W[key], C[key], rss[key] / 1024, pages[key], runs[key], (runs[key] > 1 ? "s, median" : "")
}
function versus(size,   c, b) {
	c = size SUBSEP "compare"; b = size SUBSEP "benchstat"
	printf "  compare / benchstat at 2 x %d: wall %.2fx, CPU %.2fx, max RSS %.2fx (goals: wall at most 1x, RSS at most 2x)\n", size, W[c] / W[b], C[c] / C[b], rss[c] / rss[b]
}
END {
	printf "  %-10s %9s  %9s  %9s  %10s  %8s\n", "step", "samples", "wall", "CPU", "max RSS", "pages"
	for (s = 0; s < 2; s++) {
		size = s == 0 ? n : n2
		if (size == 0) continue
		row(size, "import A"); row(size, "import B"); row(size, "compare"); row(size, "benchstat")
	}
	print ""
	for (s = 0; s < 2; s++) {
		size = s == 0 ? n : n2
		if (size == 0) continue
		versus(size)
		ia = size SUBSEP "import A"; ib = size SUBSEP "import B"; c = size SUBSEP "compare"
		total[s] = W[ia] + W[ib] + W[c]
		printf "  import + compare of 2 x %d: %.3f s wall, %.3f s CPU (goal for 100000: under 0.6 s)\n", size, total[s], C[ia] + C[ib] + C[c]
	}
	if (n2 > 0) {
		c1 = n SUBSEP "compare"; c2 = n2 SUBSEP "compare"
		printf "  scaling %d -> %d samples (x%.0f): compare wall x%.1f, CPU x%.1f, max RSS x%.1f; import + compare x%.1f (goal: linear)\n", n, n2, n2 / n, W[c2] / W[c1], C[c2] / C[c1], rss[c2] / rss[c1], total[1] / total[0]
	}
}' "$tmp/times"
# The binaries' loaded segments (file bytes): their pages, once touched, count in max
# RSS (a freshly linked binary sits in large folios of the page cache,
# mapped whole), so they bound from below what each can take.
if command -v readelf >/dev/null; then
	loaded() { # the file bytes of its LOAD segments
		local sum=0 size
		for size in $(readelf -lW "$1" | awk '$1 == "LOAD" { print $5 }'); do sum=$((sum + size)); done
		awk -v s="$sum" 'BEGIN { printf "%.1f MB", s / 1048576 }'
	}
	echo "  loaded segments: contend $(loaded "$tmp/contend"), benchstat $(loaded "$benchstat") (file-backed pages in max RSS)"
fi
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) (uptime; the machine is shared: times taken under load are noise)"
echo "appending one repetition (ns/op; goal: after=10 and after=10000 the same):"
go test -run '^$' -bench 'BenchmarkAppend' -benchtime "${BENCHTIME:-200x}" ./internal/results | grep '^Benchmark'
