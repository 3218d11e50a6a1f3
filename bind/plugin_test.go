package bind

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/testutil"
)

// buildPlugin compiles src against native/contend_plugin.h into a shared
// object.
func buildPlugin(t *testing.T, src string) string {
	native, _ := filepath.Abs("../native")
	return testutil.BuildC(t, src, "-fPIC", "-shared", "-I", native)
}

const fixedPlugin = `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "fixed work", "odd", "even");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	for (int i = 0; i < 1000; i++) {
		(*t->iterations)++;
		t->counters[i & 1]++;
	}
}
`

func TestPluginFixedCountsAddUp(t *testing.T) {
	so := buildPlugin(t, fixedPlugin)
	r, err := Plugin(PluginParams{SO: CStringOf(so), Threads: 3, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != PluginFixed || r.Iterations != 3000 || len(r.PerThread) != 3 || r.PerThread[2] != 1000 || r.ElapsedNs == 0 {
		t.Errorf("result %+v", r)
	}
	if strings.Join(r.Counters, ",") != "odd,even" || r.CounterTotals[0] != 1500 || r.CounterTotals[1] != 1500 || r.Description != "fixed work" {
		t.Errorf("counters %v %v %q", r.Counters, r.CounterTotals, r.Description)
	}
}

func TestPluginErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "no worker");
`, "defines no contend_worker"},
		{`#include "contend_plugin.h"
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "defines no contend_plugin"},
		{`#include "contend_plugin.h"
#undef CONTEND_PLUGIN_ABI
#define CONTEND_PLUGIN_ABI 99
CONTEND_PLUGIN(CONTEND_DURATION, "future");
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "was built for plugin ABI 99, this contend runs ABI 1"},
		{`#include <errno.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "setup fails");
int contend_setup(unsigned n, void **s) { return EMFILE; }
void contend_worker(void *s, unsigned id, struct contend_thread *t) {}
`, "contend_setup of"},
	}
	for _, c := range cases {
		so := buildPlugin(t, c.src)
		_, err := Plugin(PluginParams{SO: CStringOf(so), Threads: 2, DurationNs: 1e6, ReportFD: -1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	_, err := Plugin(PluginParams{SO: CStringOf("/nonexistent/p.so"), Threads: 1, ReportFD: -1})
	if err == nil || !strings.Contains(err.Error(), "plugin: /nonexistent/p.so: cannot open shared object file") {
		t.Errorf("missing file: %v", err)
	}
}

// durationPlugin counts iterations and, in counter "proc", whether it runs
// in a worker process, and in "pinned" whether it was pinned. It counts
// one before it first looks at the stop flag: a worker that is scheduled
// only after the duration (a loaded machine: at 50 ms and at 300 ms one
// sometimes was) still shows that it ran and that its count arrived.
const durationPlugin = `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "loop", "proc", "pinned");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	t->counters[0] = t->process;
	t->counters[1] = t->cpu >= 0;
	do
		(*t->iterations)++;
	while (!contend_stopped(t));
}
`

func TestPluginWorkersBothModes(t *testing.T) {
	fixed := buildPlugin(t, fixedPlugin)
	dur := buildPlugin(t, durationPlugin)
	for _, procs := range []Workers{WorkersThreads, WorkersProcesses} {
		r, err := Plugin(PluginParams{SO: CStringOf(fixed), Threads: 3, Processes: procs, ReportFD: -1})
		if err != nil {
			t.Fatalf("processes=%v: %v", procs, err)
		}
		if r.Mode != PluginFixed || r.Iterations != 3000 || len(r.PerThread) != 3 || r.WorkersStarted != 3 || r.ElapsedNs == 0 {
			t.Errorf("processes=%v: fixed %+v", procs, r)
		}
		for i, n := range r.PerThread {
			if n != 1000 {
				t.Errorf("processes=%v: worker %d counted %d", procs, i, n)
			}
		}
		if r.CounterTotals[0] != 1500 || r.CounterTotals[1] != 1500 {
			t.Errorf("processes=%v: counters %v %v", procs, r.Counters, r.CounterTotals)
		}

		// Every worker counts at least one, however late it runs (see
		// durationPlugin).
		r, err = Plugin(PluginParams{SO: CStringOf(dur), Threads: 2, Processes: procs, Pin: 1, DurationNs: 300e6, ReportFD: -1})
		if err != nil {
			t.Fatalf("processes=%v: %v", procs, err)
		}
		var sum uint64
		for _, n := range r.PerThread {
			if n == 0 {
				t.Errorf("processes=%v: a worker counted nothing: %v", procs, r.PerThread)
			}
			sum += n
		}
		wantProc := uint64(0)
		if procs == WorkersProcesses {
			wantProc = 2
		}
		if r.Mode != PluginDuration || sum != r.Iterations || r.ElapsedNs < 300e6 || r.CounterTotals[0] != wantProc || r.CounterTotals[1] != 2 {
			t.Errorf("processes=%v: duration %+v", procs, r)
		}
		assertNoChildProcesses(t)
	}
}

// In process mode the state from contend_setup is each worker's own copy.
func TestPluginProcessStateIsPrivate(t *testing.T) {
	so := buildPlugin(t, `#include <stdlib.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "private state");
int contend_setup(unsigned n, void **s) { *s = calloc(1, sizeof(uint64_t)); return *s ? 0 : 12; }
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	volatile uint64_t *x = state;
	for (int i = 0; i < 100000; i++)
		(*x)++;
	*t->iterations = *x;
}
void contend_teardown(void *s) { free(s); }
`)
	r, err := Plugin(PluginParams{SO: CStringOf(so), Threads: 2, Processes: WorkersProcesses, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.PerThread[0] != 100000 || r.PerThread[1] != 100000 {
		t.Errorf("each process must count its own copy to 100000: %v", r.PerThread)
	}
}

func TestPluginProcessFailures(t *testing.T) {
	crash := buildPlugin(t, `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "crashes in worker 1");
void contend_worker(void *s, unsigned id, struct contend_thread *t)
{
	if (id == 1)
		*(volatile int *)0 = 1;
}
`)
	crashLoop := buildPlugin(t, `#include <signal.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_DURATION, "aborts in worker 0, the others loop");
void contend_worker(void *s, unsigned id, struct contend_thread *t)
{
	if (id == 0)
		raise(SIGABRT);
	while (!contend_stopped(t))
		(*t->iterations)++;
}
`)
	exits := buildPlugin(t, `#include <stdlib.h>
#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "exits");
void contend_worker(void *s, unsigned id, struct contend_thread *t) { exit(3); }
`)
	for _, c := range []struct {
		so      string
		threads int
		dur     uint64
		want    string
	}{
		{crash, 3, 0, "plugin: worker 2 of 3 (pid "},
		{crash, 3, 0, ") was killed by signal SIGSEGV"},
		// Found within a tick, long before the duration is over.
		{crashLoop, 2, 60e9, ") was killed by signal SIGABRT"},
		{exits, 2, 0, "exited with status 3 before contend_worker returned"},
	} {
		start := time.Now()
		_, err := Plugin(PluginParams{SO: CStringOf(c.so), Threads: int32(c.threads), Processes: WorkersProcesses, DurationNs: Nanos(c.dur), ReportFD: -1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
		// Not a speed bound: a failure noticed only at the end returns
		// after the duration (60 s, whatever the load).
		if d := time.Duration(c.dur); d > 0 && time.Since(start) >= d {
			t.Errorf("%s: the failure was not noticed until the end of the %v duration", c.want, time.Duration(c.dur))
		}
		assertNoChildProcesses(t)
	}
}

func TestPluginStartFailure(t *testing.T) {
	so := buildPlugin(t, durationPlugin)
	for _, c := range []struct {
		procs Workers
		want  string
	}{
		{WorkersProcesses, "plugin: fork of worker 3 of 4 (2 forked; raise ulimit -u"},
		{WorkersThreads, "plugin: pthread_create of thread 3 of 4 (2 created; raise ulimit -u, kernel.threads-max or the pids cgroup limit) failed: EAGAIN"},
	} {
		r, err := Plugin(PluginParams{SO: CStringOf(so), Threads: 4, Processes: c.procs, DurationNs: 60e9, Inject: InjectForkEAGAIN, ReportFD: -1})
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, syscall.EAGAIN) {
			t.Errorf("error %v, want %q and EAGAIN", err, c.want)
		}
		if r.WorkersStarted != 2 {
			t.Errorf("%d workers started, want 2", r.WorkersStarted)
		}
		assertNoChildProcesses(t)
	}
}

// TestPluginThreadStructsApart: each thread worker's struct contend_thread
// (set up before the gate, in one array) starts a 128-byte block of its
// own: a plugin may write through its pointer, and neighbours sharing a
// cache line would measure false sharing that the plugin does not have.
func TestPluginThreadStructsApart(t *testing.T) {
	so := buildPlugin(t, `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "addresses");
void contend_worker(void *state, unsigned id, struct contend_thread *t)
{
	*t->iterations = (uint64_t)(uintptr_t)t;
}
`)
	r, err := Plugin(PluginParams{SO: CStringOf(so), Threads: 4, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	addrs := slices.Sorted(slices.Values(r.PerThread))
	for i, a := range addrs {
		if a%128 != 0 || (i > 0 && a-addrs[i-1] < 128) {
			t.Fatalf("struct contend_thread addresses %#x: each must start a 128-byte block of its own", addrs)
		}
	}
}
