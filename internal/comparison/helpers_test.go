package comparison

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
