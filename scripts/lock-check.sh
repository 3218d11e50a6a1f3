#!/usr/bin/env bash
# lock-check.sh - issue 31's check of the lock collector with identity
# (--evidence lock: BPF on lock:contention_begin/end, aggregated in the
# kernel) against today's tracefs collector (--evidence locktrace: every
# event through the trace buffer) on the same workloads: mutex with 100
# threads and faultme. Debian's perf has no BPF skeletons here, so
# `perf lock contention -b` cannot be the reference.
#
# For each workload and collector it prints the kind of kernel lock with
# the largest median total wait (k.lock.KIND.wait, which both record the
# same way) with its median count, and for BPF the lock of the largest
# median wait by name (k.lock.wait.NAME: a static lock's symbol,
# runqueues, mmap_lock, siglock, else KIND@CALLER) and its median count;
# then whether the two top kinds agree, and what each saw of mmap_lock
# (BPF: its contentions; tracefs: its acquisitions, contended or not,
# from the mmap_lock events: this kernel's anonymous faults take the
# VMA's own lock, not mmap_lock, so faultme's top lock is elsewhere).
# tracefs may lose events when its
# buffer fills (the repetitions' notes say how many: printed); BPF loses
# none unless a map fills (said the same way).
#
# Small by default (N=5 repetitions a side; mutex 100 threads x 100000
# locks, faultme 4 threads x 256 MiB); run it quiet for figures. Needs
# root (BPF, tracefs). Takes the machine lock; NOLOCK=1 runs beside
# whatever else runs.
#
#   scripts/lock-check.sh        N=10 NOLOCK=1 scripts/lock-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-5}
lock=()
if [ -n "${NOLOCK:-}" ]; then lock=(--no-lock); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -tags urfave_cli_no_docs -o "$tmp/contend" ./cmd/contend
echo "uptime: $(uptime)"

# check NAME WORKLOAD ARGS...: both collectors, then the comparison.
check() {
	local name=$1
	shift
	for ev in lock locktrace; do
		"$tmp/contend" run "$@" -n "$n" -q "${lock[@]}" --evidence "$ev" -o "$tmp/$name-$ev.jsonl" >/dev/null
	done
	echo "== $name ($*, n=$n a collector)"
	python3 - "$tmp/$name-lock.jsonl" "$tmp/$name-locktrace.jsonl" <<'PY'
import json, statistics, sys

def read(path):
    head, reps = None, []
    for line in open(path):
        d = json.loads(line)
        if "rep" in d:
            if d["rep"].get("status") == "ok" and not d["rep"].get("warmup"):
                reps.append(d["rep"])
        elif head is None:
            head = d
    return head, reps

def medians(reps, prefix, suffix=""):
    """Median over the repetitions of every metric prefix+NAME+suffix
    (0 where a repetition lacks it), by NAME."""
    names = {k[len(prefix):len(k) - len(suffix)] for r in reps for k in r.get("metrics", {})
             if k.startswith(prefix) and k.endswith(suffix)}
    return {x: statistics.median(r.get("metrics", {}).get(prefix + x + suffix, 0.0) for r in reps) for x in names}

def top(m):
    return max(sorted(m), key=lambda k: m[k]) if m and max(m.values()) > 0 else None

kinds = ["spinlock", "rwlock", "mutex", "rwsem_read", "rwsem_write", "percpu_rwsem", "rtmutex"]
res = {}
for label, path in zip(["lock (BPF)", "locktrace (tracefs)"], sys.argv[1:]):
    head, reps = read(path)
    avail = (head or {}).get("evidence", {})
    ev = "lock" if label.startswith("lock ") else "locktrace"
    state = avail.get(ev, "?")
    waits = {k: v for k, v in medians(reps, "k.lock.", ".wait").items() if k in kinds}
    counts = {k: v for k, v in medians(reps, "k.lock.", ".count").items() if k in kinds}
    kind = top(waits)
    line = f"  {label:<20} top kind: "
    line += f"{kind} (median wait {waits[kind] / 1e6:.3f} ms, {counts.get(kind, 0):.0f} contended)" if kind else "none contended"
    if ev == "lock" and state.startswith("available; BPF"):
        lw = medians(reps, "k.lock.wait.")
        lc = medians(reps, "k.lock.contended.")
        name = top(lw)
        if name:
            line += f"\n  {'':<20} top lock: {name} (median wait {lw[name] / 1e6:.3f} ms, {lc.get(name, 0):.0f} contended)"
        if "mmap_lock" in lw:
            line += f"\n  {'':<20} mmap_lock: median wait {lw['mmap_lock'] / 1e6:.3f} ms, {lc.get('mmap_lock', 0):.0f} contended"
    elif ev == "lock":
        line += f"\n  {'':<20} (not BPF: {state})"
    else:
        acq = {k: v for k, v in medians(reps, "k.lock.mmap_", ".count").items()}
        if acq:
            line += f"\n  {'':<20} mmap_lock acquisitions (contended or not): " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(acq.items()))
    print(line)
    for r in reps[:1]:
        for note in r.get("notes", []):
            if "lock evidence" in note:
                print(f"  {'':<20} note (first repetition): {note}")
    print(f"  {'':<20} {len(reps)} repetitions; collector {state[:100]}")
    res[ev] = kind
agree = res.get("lock") is not None and res.get("lock") == res.get("locktrace")
print(f"  top kinds agree: {'yes' if agree else 'NO'}")
PY
}

check mutex mutex --threads 100 --locks 100000
check faultme faultme --threads 4 --mem 256MiB
echo "uptime: $(uptime)"
