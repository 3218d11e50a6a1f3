#!/usr/bin/env bash
# evidence-induced.sh - issue 31's "induced change, explained" checks: a
# change made on purpose must show in the evidence, and the comparison
# must say which evidence moved.
#
#  1. A CPU hog beside the workload on side B: before each B repetition
#     --b-prepare starts a busy loop pinned to CPU 0 (taskset), killed by
#     the next repetition's prepare (by its pid, from a file) and by
#     --cleanup. faultme's threads then wait for a CPU: off-CPU runnable
#     time (--evidence offcpu, BPF: needs root) and the run-queue delay
#     move; on a VM the hog can also move steal, and the comparison says
#     so before the headline when it does.
#  2. THP off against on for faultme (--a '--thp never' --b '--thp huge'):
#     the profile's fault-path symbols (the 4 KiB read-fault path against
#     the huge zero page's) move, largest change in points first. Over
#     MEM_THP (default 16GiB: read faults map the zero page, nothing is
#     allocated): with THP a repetition takes one fault per 2 MiB, and
#     over 512 MiB that was 5 samples of the child (a share of 0, 20 or
#     40%, too coarse for any test); over 16 GiB it is tens. Where read
#     faults cannot map the zero page, faultme refuses a --mem above the
#     available memory in one line: set MEM_THP lower there.
#
# Prints each comparison (compare --all). Needs root for offcpu and
# perf (perf_event_paranoid <= 1) for the profile; a collector that
# cannot run is said so in the file and the run goes on.
#
# The size: N pairs a side (default 10) of faultme with 2 threads over
# MEM (default 512MiB). Both checks test many metrics at once (the
# evidence, or the profile's shares: a hundred or more) with Holm, and an
# exact Mann-Whitney test of n against n can go no lower than
# 2/C(2n, n): 0.002 at n=6 (nothing survives a hundred tests), 1.1e-5 at
# n=10 (complete separation survives thousands). 512 MiB makes each
# repetition tens to hundreds of milliseconds (the zero page or not), so
# that the hog's share of CPU 0 is seen, not a start-up. About 2-5
# minutes quiet (the profile's repetitions start and end perf).
#
# Takes the machine lock; NOLOCK=1 runs beside whatever else runs (the
# figures are then noise: say so with the load).
#
#   scripts/evidence-induced.sh        N=12 MEM=1GiB NOLOCK=1 scripts/evidence-induced.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10}
mem=${MEM:-512MiB}
mem_thp=${MEM_THP:-16GiB}
lock=()
if [ -n "${NOLOCK:-}" ]; then lock=(--no-lock); fi
tmp=$(mktemp -d)
hog=$tmp/hog.pid
kill_hog="if [ -s $hog ]; then kill \$(cat $hog) 2>/dev/null || true; rm -f $hog; fi"
trap 'sh -c "$kill_hog"; rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
echo "uptime: $(uptime)"
start=$(date +%s)

echo "== 1. a CPU hog on CPU 0 beside faultme on side B (n=$n, --mem $mem, --evidence sched,system,offcpu)"
"$tmp/contend" ab faultme --threads 2 --mem "$mem" -n "$n" -q "${lock[@]}" \
	--evidence sched,system,offcpu \
	--a-prepare "$kill_hog" \
	--b-prepare "$kill_hog; taskset -c 0 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 & echo \$! > $hog" \
	--cleanup "$kill_hog" \
	-o "$tmp/hog.jsonl" >/dev/null
"$tmp/contend" compare --all "$tmp/hog.jsonl:a" "$tmp/hog.jsonl:b"

echo
echo "== 2. faultme THP never (A) against huge (B) (n=$n, --mem $mem_thp, --evidence profile)"
"$tmp/contend" ab faultme --threads 2 --mem "$mem_thp" -n "$n" -q "${lock[@]}" \
	--evidence sched,system,profile --a '--thp never' --b '--thp huge' \
	-o "$tmp/thp.jsonl" >/dev/null
"$tmp/contend" compare --all "$tmp/thp.jsonl:a" "$tmp/thp.jsonl:b"
echo "uptime: $(uptime); took $(($(date +%s) - start)) s"
