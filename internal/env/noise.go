package env

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"contend/internal/plural"
)

// LoadThreshold is the 1-minute load average per online CPU above which a
// run is warned about.
const LoadThreshold = 0.5

// Diagnose returns warnings about conditions of this machine that add
// noise to measurements: a cpufreq governor other than performance, load
// from other work, other runnable processes, a virtual machine, SMT, THP
// set to always, and more threads than the CPUs the run may use (its
// affinity mask, cpu.affinity) when the workload cares; the load is per
// online CPU (cpu.online), the machine's.
// threads is the largest thread or task count of the run (0 if none).
func Diagnose(f Fingerprint, threads int64, oversubscribeMatters bool) []string {
	var w []string
	if g := f["cpu.governor"]; g != "" && !strings.HasPrefix(g, "none") && g != "performance" {
		w = append(w, fmt.Sprintf("cpufreq governor is %s, not performance: clock speed varies between runs", g))
	}
	cpus, _ := strconv.Atoi(f["cpu.online"])
	if la := strings.Fields(f["loadavg"]); len(la) > 0 && cpus > 0 {
		if l, err := strconv.ParseFloat(la[0], 64); err == nil && l/float64(cpus) > LoadThreshold {
			w = append(w, fmt.Sprintf("load average %.2f on %s: other work is running and will disturb the results", l, plural.N(cpus, "CPU", "CPUs")))
		}
	}
	if n := runnable(); n > 0 {
		w = append(w, fmt.Sprintf("%s right now", plural.N(n, "other runnable thread", "other runnable threads")))
	}
	if v := f["virt"]; v != "" && v != "none detected" {
		w = append(w, "running in a virtual machine ("+v+"): steal time and hypervisor-bound faults add noise")
	}
	if f["smt"] == "on" {
		w = append(w, "SMT is on: sibling hyperthreads share cores; busy siblings slow the measured threads")
	}
	if f["thp.enabled"] == "always" {
		w = append(w, "transparent huge pages are 'always': page-fault workloads take one fault per 2 MiB unless told otherwise (--thp never)")
	}
	if oversubscribeMatters {
		if x := Oversubscribed(f, threads); x != "" {
			w = append(w, x)
		}
	}
	return w
}

// Oversubscribed is Diagnose's warning about more threads than online
// CPUs, or "" when threads fit.
func Oversubscribed(f Fingerprint, threads int64) string {
	// The threads spread over the CPUs the run may use: its affinity
	// mask (taskset, a cpuset); the online CPUs in files without it.
	cpus, _ := strconv.Atoi(f["cpu.online"])
	use, what := cpus, plural.N(cpus, "online CPU", "online CPUs")
	if a, _ := strconv.Atoi(f["cpu.affinity"]); a > 0 && a != cpus {
		use, what = a, plural.N(a, "CPU", "CPUs")+" this run may use (affinity "+f["cpu.affinity_list"]+")"
		if cpus > 0 {
			what = fmt.Sprintf("%s this run may use (affinity %s of %d online)", plural.N(a, "CPU", "CPUs"), f["cpu.affinity_list"], cpus)
		}
	}
	if use <= 0 || threads <= int64(use) {
		return ""
	}
	return fmt.Sprintf("%d threads on %s: the run is oversubscribed and measures scheduling as much as contention", threads, what)
}

// runnable counts the other runnable threads for Diagnose.
var runnable = otherRunnable

// OverrideRunnableForTest makes Diagnose see n other runnable threads (n
// < 0: the machine's own count again), so that a test of its warnings
// does not depend on the load of the machine.
func OverrideRunnableForTest(n int) {
	runnable = otherRunnable
	if n >= 0 {
		runnable = func() int { return n }
	}
}

// otherRunnable counts runnable threads besides the caller, from
// /proc/stat's procs_running.
func otherRunnable() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "procs_running "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(rest))
			return max(n-1, 0)
		}
	}
	return 0
}
