#!/usr/bin/env bash
# faithfulness-wis.sh [RUNS] - contend's wis workload against will-it-scale's
# own runner, built from the unmodified snapshot in ../shared/will-it-scale
# (or $WIS_SRC) into a temporary directory removed at the end (it needs
# libhwloc-dev; nothing of it is kept or committed).
#
# For futex4, page_fault1, pthread_mutex1 and sched_yield, each in thread and
# process mode, at --tasks = the online CPUs: one `contend verify wis`, RUNS
# repetitions a side (default 10), contend and the original alternating
# (ABBA). The original runs TEST_{threads,processes} -t N -s 2 (its fixed
# 6 s warmup, then 2 s measured); contend the same: --warmup-time 6s
# --duration 2s (WARMUP=1s for a quicker pass). TESTS="pthread_mutex1 ..."
# runs some of the four, MODES="process" one of the modes.
# The summary line of each: the medians of the per-task ops (the robot's
# per_thread_ops / per_process_ops; the original's is its average: / N)
# and their ratio contend/original, which should lie in 0.95-1.05, and
# verify's TOST verdict on the total (the same ratio: the same N on both
# sides). Timings on a shared machine are noise: the load is printed.
set -euo pipefail
runs=${1:-10}
if [[ ! $runs =~ ^[1-9][0-9]*$ || $runs -lt 3 ]]; then
	echo "faithfulness-wis.sh: RUNS '$runs': accepted: an integer of at least 3" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
src=${WIS_SRC:-../shared/will-it-scale}
if [[ ! -f $src/main.c ]]; then
	echo "faithfulness-wis.sh: no will-it-scale snapshot at $src (set WIS_SRC)" >&2
	exit 2
fi
make -s build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stamp=$(date +%Y%m%d-%H%M%S)
mkdir -p results
tasks=$(getconf _NPROCESSORS_ONLN)
summary=$tmp/summary
warmup=${WARMUP:-6s}
if [[ ! $warmup =~ ^[0-9]+(ms|s)$ ]]; then
	echo "faithfulness-wis.sh: WARMUP '$warmup': accepted: a duration such as 6s or 500ms" >&2
	exit 2
fi
for t in ${TESTS:-futex4 page_fault1 pthread_mutex1 sched_yield}; do
	if [[ ! -f $src/tests/$t.c ]]; then
		echo "faithfulness-wis.sh: TESTS: no test $t in $src/tests" >&2
		exit 2
	fi
	# will-it-scale's Makefile, by hand: -DTHREADS and -pthread for _threads.
	gcc -DTHREADS -Wall -O2 -g "$src/main.c" "$src/tests/$t.c" -pthread -lhwloc -o "$tmp/${t}_threads"
	gcc -Wall -O2 -g "$src/main.c" "$src/tests/$t.c" -lhwloc -o "$tmp/${t}_processes"
	for mode in ${MODES:-thread process}; do
		if [[ $mode != thread && $mode != process ]]; then
			echo "faithfulness-wis.sh: MODES: '$mode': accepted: thread, process" >&2
			exit 2
		fi
		prog=$tmp/${t}_threads
		[[ $mode == process ]] && prog=$tmp/${t}_processes
		out=results/verify-wis-$t-$mode-$stamp.jsonl
		./bin/contend verify wis --test "$src/tests/$t.c" --mode "$mode" --tasks "$tasks" \
			--warmup-time "$warmup" --duration 2s -n "$runs" --out "$out" -- "$prog" -t "$tasks" -s 2 >"$tmp/report" 2>&1 || true
		verdict=$(awk '/^verdict on /{getline; sub(/^ +/, ""); sub(/:.*/, ""); print; exit}' "$tmp/report")
		/usr/bin/python3 - "$out" "$t" "$mode" "$tasks" "$runs" "$(cut -d' ' -f1 /proc/loadavg)" "$verdict" >>"$summary" <<'PY'
import json, statistics, sys
path, test, mode, tasks, runs, load, verdict = sys.argv[1:]
per = {0: [], 1: []}
for line in open(path):
    rec = json.loads(line)
    r = rec.get("rep")
    if not r or r.get("status") != "ok" or r.get("warmup"):
        continue
    ops = r["metrics"].get("ops_per_sec")
    if ops is not None:
        per[r["config"]].append(ops / int(tasks))
if not per[0] or not per[1]:
    print(f"{test:15} {mode:7} no successful repetitions on a side (see {path})")
    sys.exit()
c, o = statistics.median(per[0]), statistics.median(per[1])
print(f"{test:15} {mode:7} per-task ops contend {c:12.0f}  original {o:12.0f}  ratio {c / o:.3f}  "
      f"(n {len(per[0])}/{len(per[1])}, load {load})  {verdict}")
PY
	done
done
echo "wis against will-it-scale's runner, per-task ops/s (medians), contend/original, verify's verdict at 5%:"
cat "$summary"
