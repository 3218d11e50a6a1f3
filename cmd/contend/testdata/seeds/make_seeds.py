#!/usr/bin/python3
"""Writes the seed fixtures: result files holding the numbers published in
the mails of ../../../../../shared/seeds (LKML), one repetition per
published run, in the order the mails list them. Only what the mails say is
recorded; derived values are marked below. Run from this directory:

    /usr/bin/python3 make_seeds.py
"""
import json

PROC = [  # workload.ProcessMetrics
    ("real", "ns", "lower", "child process wall time, exec to exit (as time(1) real)"),
    ("user", "ns", "lower", "child process user CPU time (rusage)"),
    ("sys", "ns", "lower", "child process system CPU time (rusage)"),
    ("cpu", "ns", "lower", "user + sys: compare this, not the split, for fault-heavy runs in a VM"),
    ("maxrss", "bytes", "lower", "peak resident set size of the child (rusage)"),
    ("minflt", "count", "", "minor page faults of the child (rusage)"),
    ("majflt", "count", "", "major page faults of the child (rusage)"),
    ("vcsw", "count", "", "voluntary context switches of the child (rusage)"),
    ("ivcsw", "count", "", "involuntary context switches of the child (rusage)"),
]

WORKLOADS = {
    "faultme": dict(primary="time", metrics=[
        ("time", "ns", "lower", "timed region: start barrier to stop barrier, read by main"),
        ("pages", "count", "", "pages read by all threads (= ceil(mem/stride))"),
        ("faults", "count", "", "minor faults taken during the timed region"),
        ("majfaults", "count", "", "major faults taken during the timed region"),
        ("rss_anon", "bytes", "", "RssAnon after the timed region (zero page or real pages)"),
    ]),
    "osim": dict(primary="time", metrics=[
        ("time", "ns", "lower", "timed region: just before SETALL until the wait-for-zero returned"),
        ("per_loop", "ns", "lower", "time / all loops of all tasks (exact)"),
        ("per_loop_orig", "ns", "lower", "as the original printed: whole us * 1000 / loops, truncated"),
        ("loops", "count", "", "loops of all tasks = tasks x loops per task"),
        ("loops_per_task", "count", "", "ceil(loops / tasks)"),
    ]),
    "semop-multi": dict(primary="ops_per_sec", metrics=[
        ("ops_per_sec", "ops/s", "higher", "as the original printed: total / nominal seconds, truncated"),
        ("ops", "count", "higher", "total semops of all threads (2 per loop)"),
        ("cpus", "count", "", "online CPUs, as the original printed"),
    ]),
    "mutex": dict(primary="real", metrics=[
        ("threads_time", "ns", "lower", "threads phase inside C: gate unlock to last join"),
        ("contended", "count", "", "trylock found the mutex held (trylock variant)"),
    ]),
}


def param(name, value, display=None, unit=""):
    p = {"name": name, "value": str(value)}
    if display:
        p["display"] = display
    if unit:
        p["unit"] = unit
    return p


def result_file(workload, label, configs, reps, env, kind="import", command=None):
    w = WORKLOADS[workload]
    metrics = [{"name": n, "unit": u, "better": b, "desc": d} for n, u, b, d in w["metrics"] + PROC]
    for m in metrics:
        if not m["better"]:
            del m["better"]
    out_reps = []
    for i, (cfg, ms) in enumerate(reps):
        out_reps.append({"index": i, "config": cfg, "status": "ok",
                         "start": "2000-01-01T00:00:00Z", "metrics": ms})
    return {
        "format": "contend-result", "version": 1,
        "contend_version": "(hand-written fixture)", "native_hash": "",
        "kind": kind, "command": command or ["(published numbers, see label)"],
        "workload": workload, "label": label,
        "start": "2000-01-01T00:00:00Z", "complete": True,
        "metrics": metrics, "primary": w["primary"],
        "configs": configs, "env": env, "reps": out_reps,
    }


def write(name, f):
    with open(name, "w") as fh:
        json.dump(f, fh, indent=2)
        fh.write("\n")


# Seed 000: Steven Rostedt, LKML 2012-05-15, faultme on a 4 CPU box with
# 3.4.0-rc7-rt6, 5 runs without and 4 with the rwsem_rt patch. "time = N
# usecs" -> ns. pages is derived: map=10737418240 / 4096.
FAULTME = [{"name": "", "params": [
    param("threads", 400, "400", "threads"), param("mem", 10737418240, "10GiB", "bytes"),
    param("stride", 4096, "4KiB", "bytes"), param("thp", "leave")]}]
ROSTEDT_ENV = {"hostname": "gandalf", "kernel.release": "3.4.0-rc7-rt6", "cpu.online": "4"}
for name, label, usecs in [
    ("rostedt-without.json", "3.4.0-rc7-rt6 without the patch (Rostedt, LKML 2012-05-15)",
     [11302617, 11229341, 11171463, 11435549, 11299086]),
    ("rostedt-with.json", "3.4.0-rc7-rt6 with the rwsem_rt patch (Rostedt, LKML 2012-05-15)",
     [6493796, 6726186, 3978194, 6796688]),
]:
    reps = [(0, {"time": u * 1000, "pages": 2621440}) for u in usecs]
    write(name, result_file("faultme", label, FAULTME, reps, dict(ROSTEDT_ENV)))

# Seed 002: Mike Galbraith, LKML 2013-06, 3.8.13-rt9-rtm (with Manfred's
# patches) and 3.8.13-rt9-rt (backport without), 3 runs each of
# semop-multi 256 64 and osim 64 256 1000000 0 0, on a 64-core box.
OSIM = [{"name": "", "params": [
    param("sems", 64, "64", "semaphores"), param("tasks", 256, "256", "processes"),
    param("loops", 1000000, "1000000", "loops"), param("busy-in", 0, "0", "increments"),
    param("busy-out", 0, "0", "increments")]}]
SEMOP = [{"name": "", "params": [
    param("threads", 256, "256", "threads"), param("sems", 64, "64", "semaphores"),
    param("duration", 30000000000, "30s", "ns"), param("pin", "false")]}]
for tag, osim, semop in [
    ("rt", [(12.676632, 12.674), (14.166756, 14.164), (15.116200, 15.113)],
     [(37343656, 1244788), (37226496, 1240883), (36730816, 1224360)]),
    ("rtm", [(12.296215, 12.293), (11.613663, 11.611), (13.755537, 13.752)],
     [(33553800, 1118460), (33344598, 1111486), (33655348, 1121844)]),
]:
    env = {"hostname": "vogelweide", "kernel.release": "3.8.13-rt9-" + tag, "cpu.online": "64"}
    what = {"rt": "backport without Manfred's patches", "rtm": "with Manfred's patches"}[tag]
    reps = [(0, {"time": round(s * 1e9), "per_loop_orig": round(pl * 1000),
                 "loops": 1000192, "loops_per_task": 3907}) for s, pl in osim]
    write("galbraith-osim-%s.json" % tag, result_file(
        "osim", "3.8.13-rt9-%s, %s (Galbraith, LKML 2013-06)" % (tag, what), OSIM, reps, dict(env)))
    reps = [(0, {"ops": ops, "ops_per_sec": ps, "cpus": 64}) for ops, ps in semop]
    write("galbraith-semop-%s.json" % tag, result_file(
        "semop-multi", "3.8.13-rt9-%s, %s (Galbraith, LKML 2013-06)" % (tag, what), SEMOP, reps, dict(env)))

# Seed 003: Hitoshi Mitake, LKML 2010-03-13, his mainc.c (trylock
# variant), 3 runs with trace events disabled, then 3 with lockdep's lock
# events enabled: bash time real/user/sys and contended. One A/B file, as
# `contend ab` writes: config a = events off, b = on.
def mutex_configs(variant):
    return [{"name": side, "params": [
        param("threads", 1000, "1000", "threads"), param("locks", 300000, "300000", "locks"),
        param("stack", 32768, "32KiB", "bytes"), param("variant", variant)],
        "env": {"tracefs.events": ev}}
        for side, ev in [("a", "none (all trace events disabled)"), ("b", "lock (lockdep events enabled)")]]


def hms(s):
    m, sec = s.split("m")
    return round((int(m) * 60 + float(sec.rstrip("s"))) * 1e9)


mitake = [
    (0, "0m24.132s", "0m17.149s", "1m18.933s", 25191221),
    (0, "0m23.535s", "0m17.233s", "1m16.213s", 25360563),
    (0, "0m20.064s", "0m15.561s", "1m4.332s", 23813911),
    (1, "0m16.636s", "0m10.173s", "0m55.595s", 11458318),
    (1, "0m16.435s", "0m10.273s", "0m54.911s", 11881095),
    (1, "0m17.339s", "0m10.225s", "0m58.556s", 11261650),
]
reps = [(c, {"real": hms(r), "user": hms(u), "sys": hms(s), "contended": n}) for c, r, u, s, n in mitake]
write("mitake-ab.json", result_file(
    "mutex", "Mitake's mainc.c, trace events off (a) and lockdep events on (b) (LKML 2010-03-13)",
    mutex_configs("trylock"), reps, {}, kind="ab"))

# Also seed 003, quoted in Mitake's mail: Xiao Guangrong's 10 + 10 runs of
# the original test-mutex (plain lock), real times only.
xiao_off = ["0m46.765s", "0m47.073s", "0m47.402s", "0m46.458s", "0m47.433s",
            "0m47.395s", "0m47.010s", "0m47.454s", "0m47.044s", "0m47.464s"]
xiao_on = ["0m39.245s", "0m40.822s", "0m40.779s", "0m40.549s", "0m40.605s",
           "0m40.923s", "0m40.560s", "0m41.050s", "0m40.757s", "0m40.715s"]
reps = [(0, {"real": hms(r)}) for r in xiao_off] + [(1, {"real": hms(r)}) for r in xiao_on]
write("xiao-ab.json", result_file(
    "mutex", "Xiao's test-mutex, trace events off (a) and lock events on (b) (LKML 2010-03-11)",
    mutex_configs("lock"), reps, {}, kind="ab"))
