package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend"
	"contend/internal/results"
	"contend/internal/testutil"
)

// buildPlugin compiles src against native/contend_plugin.h into dir/name.so.
func buildPlugin(t *testing.T, dir, name, src string) string {
	t.Helper()
	return testutil.BuildPlugin(t, dir, name, src)
}

// mutexPlugin is will-it-scale's pthread_mutex1 in contend's ABI, with a
// counter of the lock attempts that found the mutex taken.
const mutexPlugin = testutil.MutexPlugin

func TestPluginDurationMode(t *testing.T) {
	dir := chdirTemp(t)
	buildPlugin(t, dir, "mutex", mutexPlugin)
	out := filepath.Join(dir, "m.json")
	// A bare name is looked up in the current directory, not the library path.
	r := runCLI(t, "run", "plugin", "--so", "mutex.so", "--threads", "2", "--duration", "100ms", "--pin", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"plugin  so=mutex.so threads=2 duration=100ms pin=true", "repetitions: 2 (2 ok)", "ops_per_sec ", "busy "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Primary != "ops_per_sec" {
		t.Errorf("primary %s", f.Primary)
	}
	for _, rep := range f.Reps {
		it := rep.Metrics.Get("iterations")
		if it <= 0 || len(rep.Series["iterations"]) != 2 || rep.Series["iterations"][0]+rep.Series["iterations"][1] != it {
			t.Errorf("rep %d: iterations %v series %v", rep.Index, it, rep.Series)
		}
		if _, ok := rep.Metrics.Lookup("busy"); !ok || rep.Metrics.Get("time") < 100e6 {
			t.Errorf("rep %d: %v", rep.Index, rep.Metrics)
		}
	}
}

func TestPluginFixedMode(t *testing.T) {
	dir := chdirTemp(t)
	so := buildPlugin(t, dir, "fixed", `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "200000 increments of a private counter");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	for (int i = 0; i < 200000; i++)
		(*(volatile uint64_t *)t->iterations)++;
}
`)
	out := filepath.Join(dir, "f.json")
	r := runCLI(t, "run", "plugin", "--so", so, "--threads", "3", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Primary != "time" || f.Reps[0].Metrics.Get("iterations") != 600000 || f.Reps[1].Metrics.Get("fairness") != 1 {
		t.Errorf("primary %s rep %+v", f.Primary, f.Reps[0].Metrics)
	}
}

func TestPluginErrorsAndCrash(t *testing.T) {
	dir := chdirTemp(t)
	noWorker := buildPlugin(t, dir, "noworker", `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "no worker");
`)
	oldABI := buildPlugin(t, dir, "oldabi", `#include "contend_plugin.h"
#undef CONTEND_PLUGIN_ABI
#define CONTEND_PLUGIN_ABI 0
CONTEND_PLUGIN(CONTEND_DURATION, "old");
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`)
	badName := buildPlugin(t, dir, "badname", `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "x", "real");
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--so", noWorker}, "defines no contend_worker"},
		{[]string{"--so", oldABI}, "was built for plugin ABI 0, this contend runs ABI 1"},
		{[]string{"--so", badName}, `counter "real" has the name of a metric`},
		{[]string{"--so", filepath.Join(dir, "noworker.c")}, "not a shared object"},
		{[]string{"--so", "/nonexistent.so"}, "no such file"},
		{[]string{}, "plugin needs --so"},
	} {
		r := runCLI(t, append([]string{"run", "plugin", "-n", "1", "--out", filepath.Join(dir, "x.json")}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	crash := buildPlugin(t, dir, "crash", `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "crashes in thread 1");
void contend_worker(void *s, unsigned id, struct contend_thread *t)
{
	if (id == 1)
		*(volatile int *)0 = 1;
}
`)
	out := filepath.Join(dir, "c.json")
	r := runCLI(t, "run", "plugin", "--so", crash, "--threads", "2", "-n", "1", "--out", out)
	if r.code != 1 || !strings.Contains(r.stderr, "killed by signal SIGSEGV") {
		t.Errorf("crash: exit %d %s", r.code, r.stderr)
	}
	if f, err := results.Read(out); err != nil || f.Reps[0].Status != results.StatusFailed {
		t.Errorf("crash file: %v", err)
	}
}

func TestPortHeaderAndTemplate(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "port", "--header")
	want, _ := contend.Native.ReadFile("native/contend_plugin.h")
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf("--header: %d, %d bytes", r.code, len(r.stdout))
	}
	r = runCLI(t, "port", "--template", "mytest", "--mode", "fixed")
	if r.code != 0 || !strings.Contains(r.stderr, "wrote mytest.c") || !strings.Contains(r.stderr, "wrote contend_plugin.h") {
		t.Fatalf("--template: %d %s", r.code, r.stderr)
	}
	r = runCLI(t, "port", "--template", "mytest")
	if r.code != 2 || !strings.Contains(r.stderr, "mytest.c exists; not overwritten") {
		t.Errorf("overwrite: %d %s", r.code, r.stderr)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Wextra", "-fPIC", "-shared", "-o", filepath.Join(dir, "mytest.so"), filepath.Join(dir, "mytest.c")).CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("the template does not build cleanly: %v\n%s", err, out)
	}
	r = runCLI(t, "run", "plugin", "--so", "./mytest.so", "--threads", "2", "-n", "1", "--out", filepath.Join(dir, "t.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "events ") {
		t.Errorf("template run: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "port"); r.code != 2 {
		t.Errorf("port without flags: %d", r.code)
	}
}

// Both plugin modes with --workers processes: the same metrics as threads,
// counters summed over the processes, the mode recorded in the parameters.
func TestPluginWorkerProcesses(t *testing.T) {
	dir := chdirTemp(t)
	buildPlugin(t, dir, "mutex", mutexPlugin)
	out := filepath.Join(dir, "m.json")
	r := runCLI(t, "run", "plugin", "--so", "mutex.so", "--threads", "2", "--duration", "100ms", "--workers", "processes", "--pin", "-n", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"pin=true workers=processes", "repetitions: 2 (2 ok)", "ops_per_sec ", "fairness ", "busy "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.ParamValue(0, "workers"); v != "processes" || f.Primary != "ops_per_sec" {
		t.Errorf("workers=%q primary %s", v, f.Primary)
	}
	for _, rep := range f.Reps {
		it, s := rep.Metrics.Get("iterations"), rep.Series["iterations"]
		if it <= 0 || len(s) != 2 || s[0]+s[1] != it || rep.Metrics.Get("time") < 100e6 {
			t.Errorf("rep %d: iterations %v series %v metrics %v", rep.Index, it, s, rep.Metrics)
		}
		// Each process locks its own copy of the static mutex.
		if busy, ok := rep.Metrics.Lookup("busy"); !ok || busy != 0 {
			t.Errorf("rep %d: busy %v (%v), want 0: a process-local mutex is never contended", rep.Index, busy, ok)
		}
	}

	so := buildPlugin(t, dir, "fixed", `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "200000 increments of a private counter", "procs");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	for (int i = 0; i < 200000; i++)
		(*(volatile uint64_t *)t->iterations)++;
	t->counters[0] = t->process;
}
`)
	for _, workers := range []string{"threads", "processes"} {
		out := filepath.Join(dir, workers+".json")
		r := runCLI(t, "run", "plugin", "--so", so, "--threads", "3", "--workers", workers, "-n", "2", "--out", out)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", workers, r.code, r.stdout, r.stderr)
		}
		f, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		procs := 0.0
		if workers == "processes" {
			procs = 3
		}
		m := f.Reps[1].Metrics.Map()
		if f.Primary != "time" || m["iterations"] != 600000 || m["fairness"] != 1 || m["procs"] != procs || m["time"] <= 0 {
			t.Errorf("%s: primary %s rep %+v", workers, f.Primary, m)
		}
	}
	if r := runCLI(t, "run", "plugin", "--so", so, "--workers", "fibers", "-n", "1", "--out", filepath.Join(dir, "x.json")); r.code != 2 || !strings.Contains(r.stderr, "threads, processes") {
		t.Errorf("--workers fibers: exit %d %s", r.code, r.stderr)
	}
}

// A worker process that crashes fails its repetition naming the signal,
// while the others are still looping; no process of the run is left.
func TestPluginWorkerProcessCrash(t *testing.T) {
	so := buildPlugin(t, t.TempDir(), "crash", `#include <time.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "worker 2 crashes after 50 ms");
void contend_worker(void *s, unsigned id, struct contend_thread *t)
{
	struct timespec ts = { 0, 50000000 };

	if (id == 2) {
		nanosleep(&ts, NULL);
		*(volatile int *)0 = 1;
	}
	while (!contend_stopped(t))
		(*t->iterations)++;
}
`)
	stderr, wait, out, w := leakRun(t, "plugin", "--so", so, "--threads", "3", "--workers", "processes", "--duration", "60s", "-n", "2")
	code := wait()
	w.assertGone(t)
	if code != 1 {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 2 {
		t.Errorf("%d repetitions, want 2", len(f.Reps))
	}
	for _, rep := range f.Reps {
		if rep.Status != results.StatusFailed || !strings.Contains(rep.Error, "plugin: worker 3 of 3 (pid ") || !strings.Contains(rep.Error, "killed by signal SIGSEGV") {
			t.Errorf("rep %d: %s %q", rep.Index, rep.Status, rep.Error)
		}
	}
}
