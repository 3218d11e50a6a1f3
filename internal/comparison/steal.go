package comparison

import (
	"fmt"
	"strconv"

	"contend/analysis"
)

// StealShare is the share of the machine's CPU time (real time times the
// online CPUs) taken by steal on either side above which the comparison
// says so, moved or not: 1%.
const StealShare = 0.01

// cpuTimeKinds are the CPU time kinds whose moves stealNotes reports:
// steal always when it is StealShare of the machine or more, irq and
// softirq only when they changed significantly.
var cpuTimeKinds = []struct {
	metric, what, took string
	always             bool
}{
	{"k.sys.cpu_steal", "steal", "the hypervisor took", true},
	{"k.sys.cpu_irq", "irq", "hard interrupts took", false},
	{"k.sys.cpu_softirq", "softirq", "softirqs took", false},
}

// stealNotes says, before the headline, for each pair, when steal moved:
// when k.sys.cpu_steal changed significantly between the sides, or when
// on either side its median is StealShare or more of the side's median
// real time times its online CPUs (a share of the machine the hypervisor
// gave to someone else); and when irq or softirq time changed
// significantly. Steal is the largest source of noise on a VM: a change
// of the times with it may come from outside. Called after the Holm
// adjustment.
func (r *Comparison) stealNotes() []string {
	var out []string
	for _, p := range r.Pairs {
		for _, k := range cpuTimeKinds {
			var row *MetricRow
			for i := range p.Rows {
				if p.Rows[i].Metric.Name == k.metric {
					row = &p.Rows[i]
				}
			}
			if row == nil || row.Identical {
				continue // not compared, or the same on every repetition (0)
			}
			moved := row.Cmp != nil && row.Cmp.Significant()
			sa, okA := r.cpuShare(p.A, k.metric)
			sb, okB := r.cpuShare(p.B, k.metric)
			large := k.always && (okA && sa >= StealShare || okB && sb >= StealShare)
			if !moved && !large {
				continue
			}
			a, b := r.Sides[p.A].Label, r.Sides[p.B].Label
			var s string
			if okA && okB {
				s = fmt.Sprintf("%s: %s %s of the machine's CPU time in %s against %s in %s (%s)",
					k.what, k.took, sharePercent(sb), b, sharePercent(sa), a, k.metric)
			} else {
				s = fmt.Sprintf("%s: %s moved between %s and %s (%s; the share of the machine is unknown: no real time or CPU count recorded)",
					k.what, k.metric, a, b, k.metric)
			}
			if moved {
				s += fmt.Sprintf(", a significant change (p=%s, Holm over %d)", formatP(row.Cmp.AdjustedP), row.Cmp.FamilySize)
			}
			if k.always {
				s += ": the times may have moved from outside (on a VM steal is the largest source of noise there is)"
			} else {
				s += ": interrupts ran on the workload's CPUs and the times may have moved with them"
			}
			out = append(out, s)
		}
	}
	return out
}

// cpuShare is the median of metric (ns of CPU time, machine-wide) on side
// i over the median real time times the online CPUs of the side's first
// part; false when either is unknown.
func (r *Comparison) cpuShare(i int, metric string) (float64, bool) {
	xs, real := r.Sides[i].Values(metric), r.Sides[i].Values("real")
	if len(xs) == 0 || len(real) == 0 || len(r.parts[i]) == 0 {
		return 0, false
	}
	cpus, err := strconv.Atoi(PartEnv(r.parts[i][0])["cpu.online"])
	if err != nil || cpus <= 0 {
		return 0, false
	}
	d := analysis.Median(real) * float64(cpus)
	if !(d > 0) {
		return 0, false
	}
	return analysis.Median(xs) / d, true
}

// sharePercent prints a share as "3.2%" (two significant digits below 10%).
func sharePercent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 2, 64) + "%"
}

// formatP prints a p-value with three significant digits.
func formatP(p float64) string { return strconv.FormatFloat(p, 'g', 3, 64) }
