#!/usr/bin/env bash
# bench-results.sh - what result files cost: import + compare of two
# 100,000-sample files (wall time, goal: under 1 s together) and the cost
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
now() { date +%s.%N; }
t0=$(now)
"$tmp/contend" import -q --metric "$metric" --out "$tmp/a.json" "$tmp/a.log" >/dev/null
t1=$(now)
"$tmp/contend" import -q --metric "$metric" --out "$tmp/b.json" "$tmp/b.log" >/dev/null
t2=$(now)
"$tmp/contend" compare "$tmp/a.json" "$tmp/b.json" >/dev/null
t3=$(now)
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v n="$N" -v size="$(stat -c %s "$tmp/a.json")" 'BEGIN {
	printf "result files of %d samples (%d bytes each)\n", n, size
	printf "  import A      %6.3f s\n  import B      %6.3f s\n  compare A B   %6.3f s\n", t1 - t0, t2 - t1, t3 - t2
	printf "  import + compare of 2 x %d: %.3f s (goal: under 1 s)\n", n, t3 - t0
}'
echo "appending one repetition (ns/op; goal: after=10 and after=10000 the same):"
go test -run '^$' -bench 'BenchmarkAppend' -benchtime "${BENCHTIME:-200x}" ./internal/results | grep '^Benchmark'
