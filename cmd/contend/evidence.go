package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/evidence"
	"contend/internal/report"
)

func evidenceFlag() cli.Flag {
	return &cli.StringFlag{Name: "evidence", Value: "default", Usage: "kernel evidence collected with every repetition: default, none, or a list such as lock or perf,sched (see 'contend help evidence')"}
}

// parseEvidence reads --evidence.
func parseEvidence(c *cli.Context) ([]string, error) {
	names, err := evidence.Parse(c.String("evidence"))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return names, nil
}

// writeEvidenceHelp prints `contend help evidence`.
func writeEvidenceHelp(w io.Writer) {
	fmt.Fprint(w, `Kernel evidence: why a change made a workload faster or slower.

Every repetition of run, ab, ab exec, sweep, exec and verify carries the
kernel's own account of what happened in it, as metrics named k.* (k.sys.*
for the system-wide ones). The collectors act in contend around the
child's life, never inside it: they take their before-figures (and open
perf's counters, inherited by the child) before it is forked;
only lock, locktrace, offcpu and profile start the child stopped at its
first instruction (ptrace: they must name the child before it runs) and attaches there, the time it is
held stopped taken out of real; they read their figures after the child's
process group is reaped. (The kernel itself writes sched's record of each
thread as the thread exits, before its joiner wakes.) The
result file's header lists the collectors asked for and whether each is
available (with the reason when not: once per run; the run goes on).
show and run print them after the workload's metrics; compare and ab
compare them with the same intervals and tests, as a Holm family of
their own, largest effect first; sweep shows them per point.

--evidence LIST   default: sched,system (the ones that cost the child
                    nothing while it runs)
                  none: nothing (the child starts as before)
                  lock, perf, faults, hw: the defaults and these
                  perf,sched,...: exactly these collectors

What the collectors cost: 'contend ab' runs its sides with different
evidence (--a-evidence, --b-evidence; the result file records each side's
set, and the comparison says which evidence metrics only one side has), so
  contend ab osim 2 4 400000 0 0 --a-evidence none -n 20 --order abba
measures the defaults against none on the primary metric, and
--b-evidence perf one collector (make bench runs
scripts/bench-evidence.sh: faultme, mutex and osim). The perf counters are
opt-in because an inherited counter costs every context switch of the
child's tasks (about 0.5 µs each on a 2-vCPU VM). sched records at no
such cost the CPU time of the processes contend reaped (k.tree_cpu, from
rusage: exact) and the threads' context switches before their exit records
(k.csw, from taskstats: a thread's switches while it exits are in no
record), which is close to perf's context-switches but not the same count.

`)
	for _, d := range evidence.Docs() {
		tag := ""
		if d.Default {
			tag = " (default)"
		}
		fmt.Fprintf(w, "%s%s\n", d.Name, tag)
		for _, l := range report.Wrap(d.Text, report.Width-4, "") {
			fmt.Fprintln(w, "  "+strings.TrimLeft(l, " "))
		}
		for _, m := range d.Metrics {
			unit := m.Unit
			fmt.Fprintf(w, "    %s [%s]\n", m.Name, unit)
			for _, l := range report.Wrap(m.Desc, report.Width-8, "") {
				fmt.Fprintln(w, "        "+l)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, `Units: ns for times, count otherwise; every figure is the delta over one
repetition. Lock kinds: spinlock, rwlock, mutex, rwsem_read, rwsem_write,
percpu_rwsem, rtmutex (from the flags of lock:contention_begin).
`)
}
