package tune

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"contend/internal/plural"
)

// WriteCheck writes what 'contend check' shows: the readiness r, the
// processes watched for iv, the benchmark lock (holder, "" when free),
// then the advice they lead to, or 'ready'.
func WriteCheck(w io.Writer, r Readiness, iv time.Duration, holder string) {
	var advice []string
	for _, section := range []func(io.Writer, Readiness, time.Duration) []string{writeTuneState, writeBusy, writeIsolation, writeHardware, writeMemory, writeThrottle} {
		advice = append(advice, section(w, r, iv)...)
	}
	if holder != "" {
		fmt.Fprintf(w, "lock:      held by %s\n", holder)
		advice = append(advice, "another benchmark runs now ("+holder+"): a new run waits for it")
	} else {
		fmt.Fprintln(w, "lock:      free")
	}
	if len(advice) == 0 {
		fmt.Fprintln(w, "ready: nothing to change that contend can see")
		return
	}
	fmt.Fprintln(w, "advice:")
	for _, a := range advice {
		fmt.Fprintf(w, "  - %s\n", a)
	}
}

// writeTuneState writes what 'contend tune' would change and whether
// contend's tuning is in force.
func writeTuneState(w io.Writer, r Readiness, _ time.Duration) []string {
	var advice []string
	fmt.Fprintln(w, "tune (what 'contend tune' would change):")
	would := 0
	for _, p := range r.Plan {
		fmt.Fprintf(w, "  %s\n", p)
		if p.Status == StatusWouldSet {
			would++
		}
	}
	if r.Saved != nil {
		fmt.Fprintf(w, "  tuned by contend since %s (%s saved)\n", r.Saved.Saved.Local().Format("2006-01-02 15:04"), plural.N(len(r.Saved.Entries), "value", "values"))
		advice = append(advice, "contend's tuning is in force: 'contend tune --reset' when the benchmarks are done")
	}
	if would > 0 {
		advice = append(advice, fmt.Sprintf("'contend tune' (as root) would set %s above; 'contend tune --reset' puts them back", plural.N(would, "setting", "settings")))
	}
	return advice
}

// writeBusy writes the load and the (at most 5) processes that used
// CPU during iv.
func writeBusy(w io.Writer, r Readiness, iv time.Duration) []string {
	fmt.Fprintf(w, "load:      %s (%s online)\n", orNone(r.Load, "unknown"), plural.N(len(r.Online), "CPU", "CPUs"))
	fmt.Fprintf(w, "CPU used during %s:", iv)
	shown := 0
	for _, p := range r.Busy {
		if p.CPU < 0.01 || shown == 5 {
			break
		}
		fmt.Fprintf(w, "\n  %5.0f%%  pid %d  %s", 100*p.CPU, p.Pid, p.Comm)
		shown++
	}
	if shown == 0 {
		fmt.Fprint(w, " none above 1%")
	}
	fmt.Fprintln(w)
	busy := 0.0
	for _, p := range r.Busy {
		busy += p.CPU
	}
	if busy < 0.1 {
		return nil
	}
	top := r.Busy[0]
	return []string{fmt.Sprintf("other processes used %.0f%% of a CPU (most: %s, pid %d, %.0f%%): stop them, or expect their noise in the runs", 100*busy, top.Comm, top.Pid, 100*top.CPU)}
}

// writeIsolation writes the isolated and nohz_full CPUs.
func writeIsolation(w io.Writer, r Readiness, _ time.Duration) []string {
	fmt.Fprintf(w, "isolated:  %s; nohz_full: %s", orNone(r.Isolated, "none"), orNone(r.NohzFull, "none"))
	if len(r.Cmdline) > 0 {
		fmt.Fprintf(w, " (command line: %s)", strings.Join(r.Cmdline, " "))
	}
	fmt.Fprintln(w)
	if r.Isolated == "" && len(r.Online) > 2 {
		return []string{"no isolated CPUs: for the steadiest runs boot with isolcpus=LIST nohz_full=LIST and give the same LIST to 'contend tune --cpus'"}
	}
	return nil
}

// writeHardware writes SMT and the frequency range.
func writeHardware(w io.Writer, r Readiness, _ time.Duration) []string {
	fmt.Fprintf(w, "SMT:       %s\n", orNone(r.SMT, "unknown (no /sys/devices/system/cpu/smt/active)"))
	fmt.Fprintf(w, "frequency: %s\n", orNone(r.Freq, "not readable (no cpufreq: a VM, where the host decides)"))
	if r.SMT == "on" {
		return []string{"SMT is on: sibling threads share a core's units; for per-core figures turn it off (echo off > /sys/devices/system/cpu/smt/control)"}
	}
	return nil
}

// writeMemory writes whether the host takes back the memory a run frees.
func writeMemory(w io.Writer, r Readiness, _ time.Duration) []string {
	fmt.Fprintf(w, "memory:    free page reporting %s\n", orNone(r.PageReporting, "unknown (no /sys/devices)"))
	if !strings.HasPrefix(r.PageReporting, "on") {
		return nil
	}
	return []string{"free page reporting is on: the host takes back the memory a run frees within seconds, and the next run " +
		"faults it in again from the host, so a workload that allocates memory (faultme without a zero page) is faster right after " +
		"another run than a few seconds later: compare sides run at one pace, alternated (ab, verify), not runs taken at different paces"}
}

// writeThrottle writes the thermal throttling counters.
func writeThrottle(w io.Writer, r Readiness, _ time.Duration) []string {
	if len(r.Throttle) == 0 {
		fmt.Fprintln(w, "throttling: no thermal_throttle counters readable")
		return nil
	}
	var parts []string
	var total int64
	for _, k := range []string{"core_throttle_count", "package_throttle_count"} {
		if n, ok := r.Throttle[k]; ok {
			parts = append(parts, k+" "+strconv.FormatInt(n, 10))
			total += n
		}
	}
	fmt.Fprintf(w, "throttling: %s (since boot, summed over CPUs)\n", strings.Join(parts, ", "))
	if total > 0 {
		return []string{"the CPUs were thermally throttled since boot: compare the counters before and after a run, and cool the machine or lower its load"}
	}
	return nil
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
