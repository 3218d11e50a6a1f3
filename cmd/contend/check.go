package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/plural"
	"contend/internal/tune"
	"contend/internal/value"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "is this machine ready for a benchmark? tune state, load, isolated CPUs, SMT, frequency, throttling",
		ArgsUsage: " ",
		Description: `Shows in one screen what makes runs noisy here and what to do about it:
what 'contend tune' would change, the load and the processes that used CPU
during a short interval (from /proc/PID/stat), isolated CPUs (isolcpus,
nohz_full), SMT, the frequency range, thermal throttling counters where
readable, and who holds the benchmark lock; then advice in words.

Examples:
   contend check
   contend check --interval 2s --cpus 1-3`,
		Flags: []cli.Flag{
			newFlag("interval", &value.Duration{D: 500 * time.Millisecond, Min: 10 * time.Millisecond, Max: time.Minute}, "how long to watch the processes' CPU use, from 10ms to 1m"),
			&cli.StringFlag{Name: "cpus", Usage: "benchmark CPUs, as for 'contend tune'"},
		},
		Action: checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("check takes no arguments (got %q); see 'contend help check'", strings.Join(c.Args().Slice(), " "))
	}
	iv := c.Value("interval").(time.Duration)
	root := tune.Root()
	opt, err := tuneOptions(c, root)
	if err != nil {
		return err
	}
	r := tune.CheckMachine(root, opt, iv)
	h, held := lock.Current(lock.Path())
	writeCheck(c.App.Writer, r, iv, h, held)
	return nil
}

// writeCheck prints the readiness r and the advice it leads to.
func writeCheck(w io.Writer, r tune.Readiness, iv time.Duration, h lock.Holder, held bool) {
	var advice []string
	fmt.Fprintln(w, "tune (what 'contend tune' would change):")
	would := 0
	for _, p := range r.Plan {
		fmt.Fprintf(w, "  %s\n", p)
		if p.Status == tune.StatusWouldSet {
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
	fmt.Fprintf(w, "load:      %s (%s online)\n", orNone(r.Load, "unknown"), plural.N(len(r.Online), "CPU", "CPUs"))
	busyCPU := 0.0
	fmt.Fprintf(w, "CPU used during %s:", iv)
	shown := 0
	for _, p := range r.Busy {
		if p.CPU < 0.01 || shown == 5 {
			break
		}
		fmt.Fprintf(w, "\n  %5.0f%%  pid %d  %s", 100*p.CPU, p.Pid, p.Comm)
		shown++
	}
	for _, p := range r.Busy {
		busyCPU += p.CPU
	}
	if shown == 0 {
		fmt.Fprint(w, " none above 1%")
	}
	fmt.Fprintln(w)
	if busyCPU >= 0.1 {
		top := r.Busy[0]
		advice = append(advice, fmt.Sprintf("other processes used %.0f%% of a CPU (most: %s, pid %d, %.0f%%): stop them, or expect their noise in the runs", 100*busyCPU, top.Comm, top.Pid, 100*top.CPU))
	}
	fmt.Fprintf(w, "isolated:  %s; nohz_full: %s", orNone(r.Isolated, "none"), orNone(r.NohzFull, "none"))
	if len(r.Cmdline) > 0 {
		fmt.Fprintf(w, " (command line: %s)", strings.Join(r.Cmdline, " "))
	}
	fmt.Fprintln(w)
	if r.Isolated == "" && len(r.Online) > 2 {
		advice = append(advice, "no isolated CPUs: for the steadiest runs boot with isolcpus=LIST nohz_full=LIST and give the same LIST to 'contend tune --cpus'")
	}
	fmt.Fprintf(w, "SMT:       %s\n", orNone(r.SMT, "unknown (no /sys/devices/system/cpu/smt/active)"))
	if r.SMT == "on" {
		advice = append(advice, "SMT is on: sibling threads share a core's units; for per-core figures turn it off (echo off > /sys/devices/system/cpu/smt/control)")
	}
	fmt.Fprintf(w, "frequency: %s\n", orNone(r.Freq, "not readable (no cpufreq: a VM, where the host decides)"))
	if len(r.Throttle) == 0 {
		fmt.Fprintln(w, "throttling: no thermal_throttle counters readable")
	} else {
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
			advice = append(advice, "the CPUs were thermally throttled since boot: compare the counters before and after a run, and cool the machine or lower its load")
		}
	}
	if held {
		fmt.Fprintf(w, "lock:      held by %s\n", h)
		advice = append(advice, "another benchmark runs now ("+h.String()+"): a new run waits for it")
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

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
