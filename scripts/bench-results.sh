#!/usr/bin/env bash
# bench-results.sh - what result files cost: import + compare of two
# 100,000-sample files (wall and CPU time, goal: under 1 s together) and the cost
# of appending one repetition to a file holding 10 or 10,000 (goal: the
# same). A benchmark run by `make bench`, never a timed test.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
awk -v n="$N" 'BEGIN { srand(1); for (i = 0; i < n; i++) printf "faultme: took %d ns\n", 1000000 + int(rand() * 50000) }' >"$tmp/a.log"
awk -v n="$N" 'BEGIN { srand(2); for (i = 0; i < n; i++) printf "faultme: took %d ns\n", 1010000 + int(rand() * 50000) }' >"$tmp/b.log"
metric='time=took (\d+) ns:ns:lower'
# step NAME CMD...: runs CMD and notes its wall and CPU (user+sys) time,
# and the pages it faulted in (GNU time, when installed): CPU time tells
# more than wall time on a loaded machine, and on this VM a page touched
# for the first time costs about 15 us, so memory is time (pages faulted
# in at once by MADV_POPULATE_WRITE, results.prefault, count too).
TIMEFORMAT='%R %U %S'
step() {
	local name=$1 t
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -o "$tmp/t" -f '%e %U %S %R' "$@" >/dev/null 2>&1 || { echo "bench-results: $name failed: $*" >&2; exit 1; }
		t=$(cat "$tmp/t")
	else
		t=$({ time "$@" >/dev/null 2>&1; } 2>&1) || { echo "bench-results: $name failed: $*" >&2; exit 1; }
	fi
	echo "$name|$t" >>"$tmp/times"
}
step "import A" "$tmp/contend" import -q --metric "$metric" --out "$tmp/a.json" "$tmp/a.log"
step "import B" "$tmp/contend" import -q --metric "$metric" --out "$tmp/b.json" "$tmp/b.log"
step "compare A B" "$tmp/contend" compare "$tmp/a.json" "$tmp/b.json"
awk -F'|' -v n="$N" -v size="$(stat -c %s "$tmp/a.json")" 'BEGIN {
	printf "result files of %d samples (%d bytes each)\n", n, size
}
{
	k = split($2, t, " ")
	faults = k > 3 ? sprintf(" %6d pages faulted in", t[4]) : ""
	printf "  %-13s %6.3f s wall %6.3f s CPU%s\n", $1, t[1], t[2] + t[3], faults
	wall += t[1]; cpu += t[2] + t[3]; pages += t[4]
}
END {
	printf "  import + compare of 2 x %d: %.3f s wall, %.3f s CPU, %d pages (goal: under 1 s)\n", n, wall, cpu, pages
}' "$tmp/times"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (uptime; the machine is shared)"
echo "appending one repetition (ns/op; goal: after=10 and after=10000 the same):"
go test -run '^$' -bench 'BenchmarkAppend' -benchtime "${BENCHTIME:-200x}" ./internal/results | grep '^Benchmark'
