package sweepplan

import (
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/workload"
)

// ThroughputFor returns the throughput metric of sweeps of w and, when it
// is derived, the function computing it from one repetition. ok is false
// when w has no meaningful throughput. In order:
//   - w.Throughput: derived metric "throughput" in w.Throughput.Unit;
//   - a primary metric where higher is better: that metric as is;
//   - a primary metric in ns: derived "throughput" = 1e9/primary, in
//     runs/s (repetitions of the timed region per second).
func ThroughputFor(w *workload.Workload) (m results.Metric, derive func(v workload.Values, ms map[string]float64) (float64, bool), ok bool) {
	name := sweep.ThroughputName
	if _, taken := w.Metric(name); taken {
		name = "sweep_" + sweep.ThroughputName
	}
	if t := w.Throughput; t != nil {
		return results.Metric{Name: name, Unit: t.Unit, Better: string(workload.Higher), Desc: t.Desc}, t.Of, true
	}
	pm, _ := w.Metric(w.Primary)
	if pm.Better == workload.Higher {
		return pm.Result(), nil, true
	}
	if pm.Unit == "ns" {
		primary := w.Primary
		return results.Metric{Name: name, Unit: "runs/s", Better: string(workload.Higher),
				Desc: "timed regions per second: 1e9 / " + primary + " (the workload defines no work)"},
			func(_ workload.Values, ms map[string]float64) (float64, bool) {
				if ms[primary] <= 0 {
					return 0, false
				}
				return 1e9 / ms[primary], true
			}, true
	}
	return results.Metric{}, nil, false
}
