package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"contend/bind"
	"contend/internal/cpuset"
	"contend/internal/limits"
	"contend/internal/wisbuild"
)

// wisSnapshot is will-it-scale's unmodified snapshot (test input only).
const wisSnapshot = "../../../shared/will-it-scale/tests"

// TestMain clears $CONTEND_WIS_DIR once: each test's run compiles its
// will-it-scale test itself, as a child started without the parent's
// Build does (wisbuild.Object), so the tests may run in parallel.
func TestMain(m *testing.M) {
	os.Unsetenv(wisbuild.DirEnv)
	os.Exit(m.Run())
}

// wisParams is a small repetition of test (100 ms measured after 20 ms):
// the wis tests assert counts, pinning and teardown, not figures, and
// run in parallel (TestWisValidation, which builds through wisbuild's
// shared state, does not).
func wisParams(t *testing.T, test string, mode bind.WisMode, tasks int) *bind.WisParams {
	t.Helper()
	return &bind.WisParams{Test: bind.CStringOf(test), Tasks: int32(tasks), Mode: mode,
		DurationNs: bind.Nanos(100e6), WarmupNs: bind.Nanos(20e6), Pin: 1}
}

// TestWisRunsSnapshotTests runs will-it-scale's own futex4 and
// pthread_mutex1 in both modes: every task counted, the per-task metric
// named by the mode, the total its sum.
func TestWisRunsSnapshotTests(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(wisSnapshot); err != nil {
		t.Skip("no will-it-scale snapshot at " + wisSnapshot)
	}
	for _, name := range []string{"futex4", "pthread_mutex1"} {
		for _, mode := range []bind.WisMode{bind.WisThread, bind.WisProcess} {
			t.Run(fmt.Sprintf("%s/%d", name, mode), func(t *testing.T) {
				t.Parallel()
				p := wisParams(t, filepath.Join(wisSnapshot, name+".c"), mode, 2)
				s, err := runWis(p, Runtime{ReportFD: -1})
				if err != nil {
					t.Fatal(err)
				}
				per := s.Metrics[WisTaskMetric(mode)]
				if per <= 0 || per != s.Metrics["per_task_ops"] || s.Metrics["ops_per_sec"] != 2*per {
					t.Errorf("metrics %v", s.Metrics)
				}
				if len(s.Series["iterations"]) != 2 || s.Series["iterations"][0] <= 0 || s.Series["iterations"][1] <= 0 {
					t.Errorf("per-task counts %v, want 2 counts above 0", s.Series["iterations"])
				}
				if f := s.Metrics["fairness"]; f <= 0 || f > 1 {
					t.Errorf("fairness %v", f)
				}
			})
		}
	}
}

// TestWisPrepareCleanupOrder checks the API's order: testcase_prepare with
// the task count before the tasks, testcase_cleanup after every task ended
// (no count moves after it), new_task's extra task not counted.
func TestWisPrepareCleanupOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	src := `#include <stdio.h>
#include <unistd.h>
static unsigned long long *counts[64];
static unsigned long ntasks;
extern void new_task(void *(*func)(void *), void *arg);
static void *extra(void *a) { for (;;) pause(); return a; }
void testcase_prepare(unsigned long n) { FILE *f = fopen("` + log + `", "w"); fprintf(f, "prepare %lu\n", n); fclose(f); ntasks = n; }
void testcase_cleanup(void) {
	unsigned long long a[64], i, moved = 0;
	for (i = 0; i < ntasks; i++) a[i] = counts[i] ? *counts[i] : 0; /* processes: the parent has no pointers */
	usleep(20000);
	for (i = 0; i < ntasks; i++) moved += counts[i] && *counts[i] != a[i];
	FILE *f = fopen("` + log + `", "a"); fprintf(f, "cleanup moved=%llu\n", moved); fclose(f);
}
void testcase(unsigned long long *iterations, unsigned long nr) {
	counts[nr] = iterations;
	if (nr == 0) new_task(extra, 0);
	for (;;) (*(volatile unsigned long long *)iterations)++;
}
`
	test := filepath.Join(dir, "order.c")
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []bind.WisMode{bind.WisThread, bind.WisProcess} {
		s, err := runWis(wisParams(t, test, mode, 2), Runtime{ReportFD: -1})
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		b, _ := os.ReadFile(log)
		if got := string(b); got != "prepare 2\ncleanup moved=0\n" {
			t.Errorf("mode %d: the test's log is %q, want prepare 2 then cleanup with no count moving", mode, got)
		}
		if n := len(s.Series["iterations"]); n != 2 {
			t.Errorf("mode %d: %d tasks counted, want 2 (the new_task one is not)", mode, n)
		}
	}
}

// TestWisTaskProcessDeathFails checks that a task process that dies (an
// assert) fails the repetition naming the signal, and that a test without
// testcase is refused.
func TestWisTaskProcessDeathFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	die := filepath.Join(dir, "die.c")
	os.WriteFile(die, []byte("#include <assert.h>\nvoid testcase(unsigned long long *it, unsigned long nr) { (*it)++; assert(nr != 1); for (;;) (*it)++; }\n"), 0o644)
	_, err := runWis(wisParams(t, die, bind.WisProcess, 2), Runtime{ReportFD: -1})
	if err == nil || !strings.Contains(err.Error(), "process 1 of 2 was killed by SIGABRT") {
		t.Errorf("a dying task process: %v, want it named with SIGABRT", err)
	}
	none := filepath.Join(dir, "none.c")
	os.WriteFile(none, []byte("int x;\n"), 0o644)
	_, err = runWis(wisParams(t, none, bind.WisThread, 1), Runtime{ReportFD: -1})
	if err == nil || !strings.Contains(err.Error(), "undefined reference to `testcase'") || strings.Contains(err.Error(), "/tmp/contend-wis") {
		t.Errorf("a test without testcase: %v", err)
	}
}

// TestWisValidation checks the parameters' refusals: --mode, --tasks,
// --test, each one line naming the flag.
func TestWisValidation(t *testing.T) {
	w, _ := Lookup("wis")
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.c")
	os.WriteFile(ok, []byte("void testcase(unsigned long long *i, unsigned long n) { for (;;) (*i)++; }\n"), 0o644)
	link := filepath.Join(dir, "link.c")
	os.Symlink(ok, link)
	t.Cleanup(wisbuild.Cleanup)
	cases := []struct {
		given map[string]string
		want  string
	}{
		{map[string]string{"test": ok, "mode": "fiber"}, "--mode"},
		{map[string]string{"test": ok, "tasks": "0"}, "--tasks"},
		{map[string]string{"test": ok, "tasks": strconv.Itoa(1 << 17)}, "--tasks"},
		{map[string]string{"test": ok, "duration": "1ms"}, "--duration"},
		{map[string]string{"test": filepath.Join(dir, "nope.c")}, "--test"},
		{map[string]string{"test": link}, "symbolic link"},
		{map[string]string{"test": dir}, "not a regular file"},
	}
	for _, c := range cases {
		v, err := w.Resolve(c.given)
		if err == nil {
			_, err = w.Check(v, limits.Machine{ThreadsMax: 1000, PidMax: 1000})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line naming %s", c.given, err, c.want)
		}
	}
	v, err := w.Resolve(map[string]string{"test": ok})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Check(v, limits.Machine{ThreadsMax: 1000, PidMax: 1000}); err != nil {
		t.Errorf("a good test refused: %v", err)
	}
	if v.Int("tasks") != int64(onlineCPUs()) {
		t.Errorf("--tasks defaults to %d, want the online CPUs (%d)", v.Int("tasks"), onlineCPUs())
	}
}

// TestWisProcessTasksSingleThreaded checks that process-mode tasks are
// processes glibc knows to be single-threaded, as will-it-scale's are
// (forked by a leader that never had a thread): a task forked from the
// multi-threaded repetition child is not, and ran pthread_mutex1 2-4x
// slower (glibc's single-threaded paths).
func TestWisProcessTasksSingleThreaded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	test := filepath.Join(dir, "single.c")
	src := `#include <stdlib.h>
#include <sys/single_threaded.h>
void testcase(unsigned long long *iterations, unsigned long nr) {
	if (!__libc_single_threaded) abort();
	for (;;) (*(volatile unsigned long long *)iterations)++;
}
`
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := runWis(wisParams(t, test, bind.WisProcess, 2), Runtime{ReportFD: -1})
	if err != nil {
		t.Fatalf("a process-mode task is not single-threaded: %v", err)
	}
	if s.Metrics["per_process_ops"] <= 0 {
		t.Errorf("metrics %v", s.Metrics)
	}
}

// TestWisThreadTasksInTheLeader checks that thread-mode tasks run as
// will-it-scale's do: threads of a small C process (the leader), not of
// the Go process that runs the repetition, whose runtime threads they
// would share the process with (3-8% slower there); and that a crashing
// task thread fails the repetition naming the signal.
func TestWisThreadTasksInTheLeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "threads.log")
	test := filepath.Join(dir, "threads.c")
	src := `#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
void testcase_prepare(unsigned long n) {
	int threads = 0;
	DIR *d = opendir("/proc/self/task");
	while (d && readdir(d)) threads++;
	FILE *f = fopen("` + log + `", "w"); fprintf(f, "%d %d\n", (int)getpid(), threads - 2); fclose(f);
}
void testcase(unsigned long long *iterations, unsigned long nr) {
	for (;;) (*(volatile unsigned long long *)iterations)++;
}
`
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runWis(wisParams(t, test, bind.WisThread, 2), Runtime{ReportFD: -1}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	var pid, threads int
	if _, err := fmt.Sscanf(string(b), "%d %d", &pid, &threads); err != nil {
		t.Fatalf("the test's log %q: %v", b, err)
	}
	if pid == os.Getpid() || threads != 1 {
		t.Errorf("testcase_prepare ran in pid %d with %d threads; want another process than this one (%d), with its main thread only", pid, threads, os.Getpid())
	}
	die := filepath.Join(dir, "die.c")
	os.WriteFile(die, []byte("#include <assert.h>\nvoid testcase(unsigned long long *it, unsigned long nr) { (*it)++; assert(nr != 1); for (;;) (*it)++; }\n"), 0o644)
	_, err := runWis(wisParams(t, die, bind.WisThread, 2), Runtime{ReportFD: -1})
	if err == nil || !strings.Contains(err.Error(), "the tasks' process was killed by SIGABRT") {
		t.Errorf("a crashing task thread: %v, want it named with SIGABRT", err)
	}
}

// TestWisTasksPinned checks in each task, with sched_getaffinity on a mask
// as large as the kernel's, that task i runs on the i-th allowed CPU alone
// (modulo), in both modes, as will-it-scale pins.
func TestWisTasksPinned(t *testing.T) {
	t.Parallel()
	allowed, err := cpuset.Affinity(0)
	if err != nil {
		t.Skip(err)
	}
	var list []string
	for _, c := range allowed {
		list = append(list, strconv.Itoa(c))
	}
	dir := t.TempDir()
	test := filepath.Join(dir, "pinned.c")
	src := `#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
static const int allowed[] = {` + strings.Join(list, ",") + `};
void testcase(unsigned long long *iterations, unsigned long nr) {
	int want = allowed[nr % (sizeof(allowed) / sizeof(allowed[0]))];
	cpu_set_t *set = CPU_ALLOC(65536);
	size_t size = CPU_ALLOC_SIZE(65536);
	if (!set || sched_getaffinity(0, size, set) != 0 || CPU_COUNT_S(size, set) != 1 || !CPU_ISSET_S(want, size, set))
		abort();
	for (;;) (*(volatile unsigned long long *)iterations)++;
}
`
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []bind.WisMode{bind.WisThread, bind.WisProcess} {
		s, err := runWis(wisParams(t, test, mode, 3), Runtime{ReportFD: -1})
		if err != nil {
			t.Fatalf("mode %d: a task is not pinned to its CPU alone: %v", mode, err)
		}
		if it := s.Series["iterations"]; len(it) != 3 || it[0] <= 0 || it[2] <= 0 {
			t.Errorf("mode %d: per-task counts %v, want 3 above 0", mode, it)
		}
	}
}

// TestWisLateTeardownKeepsCounts: a task thread that ignores its
// cancellation (as malloc1's threads do on some glibc versions, where
// will-it-scale's own runner hangs after printing its figure) costs the
// repetition nothing it measured: the counts of the interval are kept and
// a note says the teardown was late.
func TestWisLateTeardownKeepsCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	test := filepath.Join(dir, "stubborn.c")
	src := `#include <pthread.h>
#include <unistd.h>
void testcase(unsigned long long *iterations, unsigned long nr) {
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, 0);
	for (;;) {
		(*(volatile unsigned long long *)iterations)++;
		usleep(1000); /* no cancellation point while cancellation is disabled */
	}
}
`
	if err := os.WriteFile(test, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := wisParams(t, test, bind.WisThread, 2)
	p.JoinS = 1 // 10 s by default (CT_WIS_JOIN_S): the same wait, longer
	s, err := runWis(p, Runtime{ReportFD: -1})
	if err != nil {
		t.Fatalf("a task thread that outlives its cancellation failed the repetition: %v", err)
	}
	if s.Metrics["iterations"] <= 0 || len(s.Series["iterations"]) != 2 {
		t.Errorf("counts %v / %v, want the interval's counts of 2 tasks", s.Metrics["iterations"], s.Series["iterations"])
	}
	want := "did not end within 1 s of its cancellation"
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], want) || !strings.Contains(s.Notes[0], "kept") {
		t.Errorf("notes %q, want one saying %q and that the counts are kept", s.Notes, want)
	}
}
