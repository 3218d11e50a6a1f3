#!/usr/bin/env bash
# profile-check.sh - contend's profile collector against perf's own report
# of the same workload: for mutex (100 threads, 300000 locks) and faultme (4 threads,
# 1 GiB), the five largest self symbols of `perf record -g` + `perf
# report --no-children` of one run of the workload beside the medians of
# k.profile.self.* over N repetitions of `contend run --evidence profile`.
# They should name the same symbols with shares within a few points
# (sampling noise: a share p of S samples has a standard error of
# sqrt(p(1-p)/S)). Needs root (or perf_event_paranoid <= 1) and perf.
#
#   scripts/profile-check.sh        N=10 scripts/profile-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
echo "uptime: $(uptime)"

check() {
	local name=$1
	shift
	# perf's own: one run of the workload's child as contend runs it.
	perf record -q -N -B -e cpu-clock -F 999 -g -o "$tmp/$name.data" -- \
		"$tmp/contend" run "$@" -n 1 --evidence none --no-lock -o "$tmp/$name-perf.jsonl" -q >/dev/null
	echo "== $name: perf report --no-children (one run; contend's own start-up included)"
	perf report -i "$tmp/$name.data" --no-children --sort sym --stdio 2>/dev/null |
		grep -E '^ +[0-9.]+%' | head -5 | sed 's/\[[.k]\] //'
	"$tmp/contend" run "$@" -n "$n" --evidence profile -o "$tmp/$name.jsonl" -q >/dev/null
	echo "== $name: contend --evidence profile (median over $n repetitions)"
	python3 - "$tmp/$name.jsonl" <<'PY'
import json, statistics, sys
shares = {}
for line in open(sys.argv[1]):
    r = json.loads(line).get("rep")
    if not r or r.get("status") != "ok":
        continue
    for k, v in r.get("metrics", {}).items():
        if k.startswith("k.profile.self."):
            shares.setdefault(k[len("k.profile.self."):], []).append(v)
reps = max((len(v) for v in shares.values()), default=0)
med = {k: statistics.median(v + [0.0] * (reps - len(v))) for k, v in shares.items()}
for k in sorted(med, key=med.get, reverse=True)[:5]:
    print(f"  {med[k]:6.2f}%  {k}")
PY
}

check mutex mutex --threads 100 --locks 300000
check faultme faultme --threads 4 --mem 1GiB
echo "uptime: $(uptime)"
