#!/usr/bin/env bash
# profile-check.sh - contend's profile collector against perf's own report
# of the same workload: for mutex (100 threads, 300000 locks) and faultme
# (4 threads, 1 GiB), the five largest self symbols of `perf report
# --no-children` beside the medians of k.profile.self.* over N
# repetitions of `contend run --evidence profile`, like with like:
#
#  - perf's side is `perf record -g` (cpu-clock, 499 Hz, as contend) of
#    `contend run ... -n N --evidence none`, perf report's shares per
#    thread and symbol (--sort pid,sym) summed over the threads of the
#    processes the run started (found from perf script's fork records),
#    not over contend's own process (its start-up, the writing of the
#    file), which the collector never records;
#  - contend's side is the collector's shares of the child's samples.
#
# The table gives, for the union of both top fives, perf's share (pooled
# over its N repetitions), contend's median, and the difference in
# points; they should name the same symbols within a few points
# (sampling noise: a share p of S samples has a standard error of
# sqrt(p(1-p)/S); both sample counts are printed). Needs root (or
# perf_event_paranoid <= 0 for contend's system-wide recording) and
# perf. Run it quiet for figures: N=3 is a quick check that it works.
#
#   scripts/profile-check.sh        N=3 scripts/profile-check.sh
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
	# perf's own recording of the whole run (inherited by every process
	# it starts); the threads of the processes the run started, from
	# perf script's fork records and samples.
	perf record -q -N -B -e cpu-clock -F 499 -g -o "$tmp/$name.data" -- \
		"$tmp/contend" run "$@" -n "$n" --evidence none --no-lock -o "$tmp/$name-perf.jsonl" -q >/dev/null
	perf script -i "$tmp/$name.data" --show-task-events -F pid,tid 2>/dev/null >"$tmp/$name.tasks"
	# perf report's own attribution per thread and symbol (its --pid and
	# --tid filters dropped the threads' exc_page_fault samples here,
	# perf 6.1): summed over the children's threads below.
	perf report -i "$tmp/$name.data" --no-children --sort pid,sym -g none --stdio 2>/dev/null >"$tmp/$name.report"
	python3 - "$tmp/$name.tasks" "$tmp/$name.report" >"$tmp/$name.perf" <<'PY'
import re, sys
root, parent, tgid, samples = None, {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"PERF_RECORD_COMM exec: .*:(\d+)/(\d+)", line)
    if m and root is None:
        root = int(m.group(1))
    m = re.search(r"PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)", line)
    if m:
        tgid[int(m.group(2))] = int(m.group(1))
        if m.group(1) != m.group(3):
            parent[int(m.group(1))] = int(m.group(3))
    m = re.match(r"\s*(\d+)/(\d+)\s*$", line)
    if m:
        tgid[int(m.group(2))] = int(m.group(1))
        samples[int(m.group(1))] = samples.get(int(m.group(1)), 0) + 1
def below(p):
    while p in parent:
        p = parent[p]
        if p == root:
            return True
    return False
kids = {p for p in samples if p != root and below(p)}
shares, total = {}, 0.0
for line in open(sys.argv[2]):
    m = re.match(r"\s+([0-9.]+)%\s+(\d+):\S*\s+\[[.k]\]\s+(.*\S)\s*$", line)
    if m and tgid.get(int(m.group(2))) in kids:
        shares[m.group(3)] = shares.get(m.group(3), 0.0) + float(m.group(1))
        total += float(m.group(1))
print("samples %d %d %d" % (sum(samples.values()), sum(samples[p] for p in kids), len(kids)))
for sym, v in sorted(shares.items(), key=lambda kv: -kv[1]):
    print("%.4f %s" % (100 * v / total, sym))
PY
	read -r _ all kidsamples nkids <"$tmp/$name.perf"
	if [ "$kidsamples" = 0 ]; then
		echo "$name: perf recorded no sample of the run's children" >&2
		return 1
	fi
	"$tmp/contend" run "$@" -n "$n" --evidence profile -o "$tmp/$name.jsonl" -q >/dev/null
	echo "== $name ($*): perf report of the children (pooled over $n repetitions) against contend --evidence profile (median over $n)"
	echo "  perf: $kidsamples samples of the $nkids child processes ($all of the whole run)"
	python3 - "$tmp/$name.perf" "$tmp/$name.jsonl" <<'PY'
import json, statistics, sys
perf = {}
for line in list(open(sys.argv[1]))[1:]:
    share, sym = line.rstrip("\n").split(" ", 1)
    perf[sym] = float(share)
shares, samples = {}, []
for line in open(sys.argv[2]):
    r = json.loads(line).get("rep")
    if not r or r.get("status") != "ok":
        continue
    ms = r.get("metrics", {})
    samples.append(ms.get("k.profile.samples", 0))
    for k, v in ms.items():
        if k.startswith("k.profile.self."):
            shares.setdefault(k[len("k.profile.self."):], []).append(v)
reps = len(samples)
med = {k: statistics.median(v + [0.0] * (reps - len(v))) for k, v in shares.items()}
top_perf = sorted(perf, key=perf.get, reverse=True)[:5]
top_cont = sorted(med, key=med.get, reverse=True)[:5]
print(f"  {'perf':>7} {'contend':>8} {'diff':>7}  symbol")
for s in top_perf + [s for s in top_cont if s not in top_perf]:
    p, c = perf.get(s, 0.0), med.get(s, 0.0)
    mark = "" if s in top_perf and s in top_cont else "   (in one top five only)"
    print(f"  {p:6.2f}% {c:7.2f}% {c - p:+6.2f}  {s}{mark}")
if samples:
    print(f"  contend: median {statistics.median(samples):.0f} samples of the child a repetition (min {min(samples):.0f}, {reps} repetitions)")
same = len(set(top_perf) & set(top_cont))
print(f"  top five in common: {same} of 5")
PY
}

check mutex mutex --threads 100 --locks 300000
check faultme faultme --threads 4 --mem 1GiB
echo "uptime: $(uptime)"
