package summary

import "contend/internal/results"

// file makes a result file of workload with configurations names and the
// values of each metric per configuration.
func file(workload string, metrics []results.Metric, names []string, vals map[string][][]float64) *results.File {
	f := &results.File{Format: results.FormatName, Version: 1, Workload: workload, Metrics: metrics,
		Primary: metrics[0].Name, Env: map[string]string{"kernel.release": "6.1.0"}}
	for _, n := range names {
		f.Configs = append(f.Configs, results.Config{Name: n, Params: []results.Param{{Name: "threads", Value: "4"}}})
	}
	idx := 0
	for c := range names {
		n := len(vals[metrics[0].Name][c])
		for i := 0; i < n; i++ {
			ms := map[string]float64{}
			for _, m := range metrics {
				ms[m.Name] = vals[m.Name][c][i]
			}
			f.Reps = append(f.Reps, results.Rep{Index: idx, Config: c, Status: results.StatusOK, Metrics: results.ValuesOf(ms)})
			idx++
		}
	}
	return f
}

var evidenceMetrics = []results.Metric{
	{Name: "time", Unit: "ns", Better: "lower"},
	{Name: "faults", Unit: "count"},
	{Name: "k.context_switches", Unit: "count", Better: "lower"},
	{Name: "k.runq_delay", Unit: "ns", Better: "lower"},
	{Name: "k.sys.irq_tlb", Unit: "count", Better: "lower"},
	{Name: "k.lock.mutex.count", Unit: "count", Better: "lower"},
}

// evidenceFile: time moves a little, context switches a lot (no
// overlap), run-queue delay somewhat (overlap), TLB shootdowns not at
// all, lock counts are 0 everywhere.
func evidenceFile() *results.File {
	return file("mutex", evidenceMetrics, []string{"a", "b"}, map[string][][]float64{
		"time":               {{100, 101, 99, 100.5, 99.5, 100.2}, {110, 111, 109, 110.5, 109.5, 110.2}},
		"faults":             {{5, 5, 5, 5, 5, 5}, {5, 5, 5, 5, 5, 5}},
		"k.context_switches": {{10, 11, 12, 13, 14, 15}, {100, 110, 120, 130, 140, 150}},
		"k.runq_delay":       {{10, 20, 30, 40, 50, 60}, {35, 45, 55, 65, 75, 85}},
		"k.sys.irq_tlb":      {{1, 2, 3, 4, 5, 6}, {2, 1, 4, 3, 6, 5}},
		"k.lock.mutex.count": {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
	})
}
