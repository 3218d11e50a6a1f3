package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
	"contend/internal/testutil"
	"contend/internal/vm"
	"contend/internal/wisbuild"
)

// largeCPUs is the vCPUs of TestLargeGuest's guest unless
// CONTEND_E2E_LARGE_CPUS says otherwise: at least 64 (QEMU 7.2's pc
// machine takes up to 255 without an IOMMU). On a host with fewer CPUs
// TCG runs them single-threaded (vm.TCGThreads), where a 64-vCPU guest
// boots in seconds and the whole test takes minutes (docs/vm.md).
const largeCPUs = 64

// largeTimeout bounds the whole boot (CONTEND_E2E_LARGE_TIMEOUT).
const largeTimeout = 40 * time.Minute

// yieldTest is the will-it-scale test the large guest runs: a
// sched_yield loop (the robot's sched_yield report), in both modes.
const yieldTest = `#include <sched.h>
void testcase(unsigned long long *iterations, unsigned long nr)
{
	for (;;) {
		sched_yield();
		(*iterations)++;
	}
}
`

// TestLargeGuest is the proof by simulation of a large machine (issue
// 42): a QEMU guest of 64 vCPUs (CONTEND_E2E_LARGE_CPUS) runs every
// workload at a small size, with the default evidence and with lock,
// offcpu and profile, in one boot: mutex at 64 threads a vCPU, faultme
// at one a vCPU, will-it-scale at one task a vCPU in both modes (pinned,
// will-it-scale's default), semop-multi pinned, osim at one task a vCPU,
// sysbench-mutex at two threads a vCPU and a plugin pinned at one worker
// a vCPU as threads and as processes. Every repetition must succeed (no
// EAGAIN or EMFILE: a thread, process or file the machine refused fails
// the repetition), lose no BPF event at the default sizes (k.lock.lost
// and k.offcpu.lost 0), have profile samples, and the guest must have the
// vCPUs online. Pinning is checked by the workers themselves: a worker
// whose sched_getaffinity is not the CPU it was pinned to fails its
// repetition. It is part of make e2e; CONTEND_E2E_LARGE=0 leaves it out.
func TestLargeGuest(t *testing.T) {
	if os.Getenv("CONTEND_E2E") != "1" {
		t.Skip("end-to-end: CONTEND_E2E=1 (make e2e) boots a 64-vCPU QEMU guest")
	}
	if os.Getenv("CONTEND_E2E_LARGE") == "0" {
		t.Skip("CONTEND_E2E_LARGE=0")
	}
	cpus := envInt(t, "CONTEND_E2E_LARGE_CPUS", largeCPUs)
	timeout := largeTimeout
	if s := os.Getenv("CONTEND_E2E_LARGE_TIMEOUT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("CONTEND_E2E_LARGE_TIMEOUT: %v", err)
		}
		timeout = d
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(workDir(t), "large")
	os.RemoveAll(work)
	os.MkdirAll(work, 0o755)
	kdir, _ := debianKernels(t, repo)
	// Linked dynamically: the guest then gets glibc and its interpreter
	// (vm.WriteInitramfs), which the will-it-scale leader and perf need.
	bin := filepath.Join(work, "contend")
	if b, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "../cmd/contend").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}

	// The will-it-scale test compiled here, its objects put in the guest
	// ($CONTEND_WIS_OBJECTS: the guest has no compiler).
	src := filepath.Join(work, "sched_yield.c")
	if err := os.WriteFile(src, []byte(yieldTest), 0o644); err != nil {
		t.Fatal(err)
	}
	built, err := wisbuild.Build(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wisbuild.Cleanup)
	files := []vm.File{
		{Host: src, Guest: "/wis/sched_yield.c"},
		{Host: built.SO, Guest: "/wis/obj/" + filepath.Base(built.SO)},
		{Host: built.Exe, Guest: "/wis/obj/" + filepath.Base(built.Exe)},
	}
	env := []string{wisbuild.ObjectsEnv + "=/wis/obj"}
	so := testutil.BuildPlugin(t, work, "lock", testutil.MutexPlugin)
	files = append(files, vm.File{Host: so, Guest: "/plugin/lock.so"})
	// perf for the profile, with its libraries beside it.
	perfFiles, perfEnv := guestPerf(t)
	files = append(files, perfFiles...)
	env = append(env, perfEnv...)

	ev := "lock,offcpu,profile"
	n := strconv.Itoa(cpus)
	steps := []struct {
		name string
		args []string
	}{
		{"mutex", []string{"mutex", "--threads", strconv.Itoa(64 * cpus), "--locks", "100", "-n", "2"}},
		{"faultme", []string{"faultme", "--threads", n, "--mem", "4MiB", "-n", "2"}},
		{"wis-threads", []string{"wis", "--test", "/wis/sched_yield.c", "--mode", "thread", "--tasks", n, "--duration", "1s", "--warmup-time", "10ms", "-n", "2"}},
		{"wis-process", []string{"wis", "--test", "/wis/sched_yield.c", "--mode", "process", "--tasks", n, "--duration", "1s", "--warmup-time", "10ms", "-n", "2"}},
		{"semop-multi", []string{"semop-multi", "--threads", n, "--pin", "--duration", "1s", "-n", "2"}},
		{"osim", []string{"osim", "--tasks", n, "--loops", "20000", "-n", "2"}},
		{"sysbench-mutex", []string{"sysbench-mutex", "--threads", strconv.Itoa(2 * cpus), "--mutex-locks", "200", "--mutex-loops", "1000", "-n", "2"}},
		{"plugin-threads", []string{"plugin", "--so", "/plugin/lock.so", "--threads", n, "--pin", "--workers", "threads", "--duration", "1s", "-n", "2"}},
		{"plugin-processes", []string{"plugin", "--so", "/plugin/lock.so", "--threads", n, "--pin", "--workers", "processes", "--duration", "1s", "-n", "2"}},
	}
	var more []vm.Step
	for i, s := range steps {
		out := fmt.Sprintf("/tmp/large-%d.jsonl", i)
		more = append(more, vm.Step{Args: append([]string{"run", "--out", out, "--evidence", ev, "--timeout", "10m"}, s.args...), Out: out})
	}
	var log strings.Builder
	r, err := vm.NewRunner(context.Background(), vm.Config{Contend: bin, Log: &log, Accel: "tcg"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := filepath.Join(work, "boot")
	os.MkdirAll(dir, 0o755)
	start, load := time.Now(), loadavg()
	// lpj: no delay-loop calibration on each vCPU (minutes under TCG);
	// the RCU stall and soft lockup warnings of vCPUs TCG starves would
	// flood the console.
	res, err := r.Boot(context.Background(), vm.Guest{
		Kernel: filepath.Join(kdir, "vmlinuz-a"), CPUs: cpus, MemMiB: 4096, Dir: dir, Timeout: timeout,
		Append: "lpj=1000000 rcupdate.rcu_cpu_stall_suppress=1 nowatchdog",
	}, vm.Command{Args: more[0].Args, Out: more[0].Out, More: more[1:], Files: files, Env: env})
	t.Logf("%d vCPUs: %s (load before %s, after %s); %s", cpus, time.Since(start).Round(time.Second), load, loadavg(), strings.TrimSpace(log.String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the first command started %s after QEMU", res.StartedAfter.Round(time.Second))
	outs := append([][]byte{res.Output}, res.More...)
	exits := append([]int{res.Report.Exit}, res.Report.More...)
	if len(outs) != len(steps) || len(exits) != len(steps) {
		t.Fatalf("%d result files and %d exit statuses came back, want %d", len(outs), len(exits), len(steps))
	}
	for i, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			path := filepath.Join(work, s.name+".jsonl")
			if err := os.WriteFile(path, outs[i], 0o644); err != nil {
				t.Fatal(err)
			}
			if exits[i] != 0 {
				t.Errorf("exit %d (console: %s)", exits[i], res.Console)
			}
			checkLarge(t, path, cpus)
		})
	}
}

// checkLarge checks one result file of the large guest.
func checkLarge(t *testing.T, path string, cpus int) {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Env["vm.cpus"] != strconv.Itoa(cpus) || f.Env["cpu.online"] != strconv.Itoa(cpus) {
		t.Errorf("vm.cpus %q, cpu.online %q: want %d", f.Env["vm.cpus"], f.Env["cpu.online"], cpus)
	}
	for _, c := range []string{"sched", "system", "lock", "offcpu", "profile"} {
		if !strings.HasPrefix(f.Evidence[c], "available") {
			t.Errorf("evidence %s: %q", c, f.Evidence[c])
		}
	}
	if len(f.Reps) == 0 {
		t.Fatalf("no repetition")
	}
	for _, rep := range f.Reps {
		text := rep.Status + " " + rep.Error + " " + strings.Join(rep.Notes, " ")
		for _, bad := range []string{"EAGAIN", "EMFILE", "Resource temporarily unavailable", "Too many open files", "not recorded"} {
			if strings.Contains(text, bad) {
				t.Errorf("repetition %d: %q", rep.Index, text)
			}
		}
		if rep.Status != results.StatusOK {
			t.Errorf("repetition %d: %s %s", rep.Index, rep.Status, rep.Error)
			continue
		}
		for _, m := range []string{"k.lock.lost", "k.offcpu.lost"} {
			v, ok := rep.Metrics.Lookup(m)
			if !ok || v != 0 {
				t.Errorf("repetition %d: %s %v (recorded: %v), want 0", rep.Index, m, v, ok)
			}
		}
		if rep.Metrics.Get("k.profile.samples") <= 0 {
			t.Errorf("repetition %d: no profile samples", rep.Index)
		}
	}
	t.Logf("%s: %d repetitions, real %v", filepath.Base(path), len(f.Reps), reals(f))
}

func reals(f *results.File) []float64 {
	var out []float64
	for _, r := range f.Reps {
		out = append(out, r.Metrics.Get("real")/1e9)
	}
	return out
}

// guestPerf returns perf (Debian's linux-perf) and its libraries as
// files of the guest, /bin/perf and /perf/lib, with the library path
// that finds them; the test fails without perf.
func guestPerf(t *testing.T) ([]vm.File, []string) {
	t.Helper()
	files, libPath, err := vm.ProgramFiles("/usr/bin/perf", "/bin/perf", "/perf/lib")
	if err != nil {
		t.Fatalf("perf for the guest's profile (apt-get install linux-perf): %v", err)
	}
	return files, []string{libPath}
}

// envInt is the integer in environment variable name, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}
