// Package sweep reads and reports scalability sweep files: per-point
// summaries, throughput, speedup, USL and Amdahl fits, CSV export, and the
// comparison of two curves. It knows no workload and links no cgo (the
// contend-plot helper uses it); planning a sweep of a workload is package
// sweepplan.
package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"contend/analysis"
	"contend/internal/report"
	"contend/internal/results"
)

// Confidence is the coverage of every interval a sweep reports.
const Confidence = 0.95

// Orders of the points within a round.
const (
	OrderShuffled = "shuffled"
	OrderFixed    = "fixed"
)

// ThroughputName is the metric a sweep adds to every repetition when the
// workload's throughput is derived (not one of its own metrics).
const ThroughputName = "throughput"

// PointStat is the summary of one point of a sweep.
type PointStat struct {
	Config int
	Name   string
	// X is the numeric value of the first swept parameter (NaN when it is
	// not numeric), the abscissa of tables, fits and plots.
	X      float64
	Counts map[string]int // measured repetitions by status
	// Summaries of every metric with values, by name.
	Summaries map[string]analysis.Summary
	// Throughput is Summaries[throughput metric]; HasThroughput false when
	// the file has none or the point has no successful repetition.
	Throughput    analysis.Summary
	HasThroughput bool
	// Speedup is the median throughput over the median throughput of the
	// smallest point (NaN without throughput).
	Speedup float64
}

// Analysis is what a sweep file says: per-point summaries, throughput,
// speedup and, when the swept parameter is a thread or task count, the
// USL and Amdahl fits of throughput against it.
type Analysis struct {
	File   *results.File
	Swept  []string // swept parameter names
	XParam results.Param
	// Concurrency tells whether the sweep has exactly one swept parameter
	// and it counts threads, tasks or processes: the fits need that.
	Concurrency bool
	Throughput  results.Metric // Name "" when there is none
	Points      []PointStat
	Smallest    int // index in Points of the speedup reference
	// WarningsShown says that the file's warnings were printed already
	// (on stderr, as the sweep started): Report does not repeat them.
	WarningsShown bool
	// Detail is how much Report says: report.Full (the zero value) every
	// table and the fits in full; report.Brief the primary metric and
	// the throughput per point, the fits in one line each and a line
	// counting the rest; report.BriefAll adds the medians of every
	// metric per point.
	Detail report.Detail

	USL       *analysis.USLFit
	Amdahl    *analysis.AmdahlFit
	FitNotes  []string // why a fit is missing
	FitPoints int      // repetitions fitted
}

// SweptParams returns the swept parameters of f: f.Sweep.Params, or for a
// file without it the parameters whose value differs across configs.
func SweptParams(f *results.File) []string {
	if f.Sweep != nil && len(f.Sweep.Params) > 0 {
		return f.Sweep.Params
	}
	var out []string
	if len(f.Configs) == 0 {
		return nil
	}
	for _, p := range f.Configs[0].Params {
		for c := range f.Configs {
			if v, _ := f.ParamValue(c, p.Name); v != p.Value {
				out = append(out, p.Name)
				break
			}
		}
	}
	return out
}

// ThroughputMetric returns the throughput metric of f, false when f has
// none.
func ThroughputMetric(f *results.File) (results.Metric, bool) {
	name := ThroughputName
	if f.Sweep != nil {
		name = f.Sweep.Throughput
	}
	if name == "" {
		return results.Metric{}, false
	}
	return f.Metric(name)
}

// IsConcurrency tells whether a recorded parameter counts threads, tasks
// or processes.
func IsConcurrency(p results.Param) bool {
	return slices.Contains(results.ConcurrencyUnits, p.Unit)
}

// ErrNotSweep is returned by Analyze for a file that is not a sweep.
var ErrNotSweep = errors.New("not a sweep file")

// Analyze summarises sweep file f.
func Analyze(f *results.File) (*Analysis, error) {
	if f.Kind != "sweep" {
		return nil, fmt.Errorf("%w (kind %q)", ErrNotSweep, f.Kind)
	}
	a := &Analysis{File: f, Swept: SweptParams(f)}
	if len(a.Swept) > 0 {
		for _, p := range f.Configs[0].Params {
			if p.Name == a.Swept[0] {
				a.XParam = p
			}
		}
	}
	a.Concurrency = len(a.Swept) == 1 && IsConcurrency(a.XParam)
	a.Throughput, _ = ThroughputMetric(f)
	a.Smallest = -1
	for c := range f.Configs {
		ps := PointStat{Config: c, Name: f.ConfigName(c), X: math.NaN(), Counts: f.Counts(c),
			Summaries: map[string]analysis.Summary{}, Speedup: math.NaN()}
		if len(a.Swept) > 0 {
			if v, ok := f.ParamValue(c, a.Swept[0]); ok {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					ps.X = x
				}
			}
		}
		for _, m := range f.Metrics {
			xs := f.Values(c, m.Name)
			if len(xs) == 0 {
				continue
			}
			if s, err := analysis.Summarize(xs, Confidence); err == nil {
				ps.Summaries[m.Name] = s
			}
		}
		if a.Throughput.Name != "" {
			ps.Throughput, ps.HasThroughput = ps.Summaries[a.Throughput.Name]
		}
		a.Points = append(a.Points, ps)
		if ps.HasThroughput && (a.Smallest < 0 || ps.X < a.Points[a.Smallest].X) {
			a.Smallest = len(a.Points) - 1
		}
	}
	if a.Smallest >= 0 {
		ref := a.Points[a.Smallest].Throughput.Median
		for i := range a.Points {
			if a.Points[i].HasThroughput && ref != 0 {
				a.Points[i].Speedup = a.Points[i].Throughput.Median / ref
			}
		}
	}
	a.fit()
	return a, nil
}

// fit fits USL and Amdahl to the per-repetition throughputs.
func (a *Analysis) fit() {
	switch {
	case a.Throughput.Name == "":
		a.FitNotes = append(a.FitNotes, "no fit: the workload defines no throughput")
		return
	case len(a.Swept) != 1:
		a.FitNotes = append(a.FitNotes, "no fit: the scalability models need exactly one swept parameter, a thread or task count")
		return
	case !a.Concurrency:
		a.FitNotes = append(a.FitNotes, fmt.Sprintf("no fit: --%s is not a thread or task count", a.Swept[0]))
		return
	}
	n, x := a.FitData()
	a.FitPoints = len(n)
	if u, err := analysis.FitUSL(n, x); err != nil {
		a.FitNotes = append(a.FitNotes, "no USL fit: "+err.Error())
	} else {
		a.USL = &u
	}
	if am, err := analysis.FitAmdahl(n, x); err != nil {
		a.FitNotes = append(a.FitNotes, "no Amdahl fit: "+err.Error())
	} else {
		a.Amdahl = &am
	}
}

// FitData returns (N, throughput) of every successful measured repetition.
func (a *Analysis) FitData() (n, x []float64) {
	for _, p := range a.Points {
		if math.IsNaN(p.X) {
			continue
		}
		for _, v := range a.File.Values(p.Config, a.Throughput.Name) {
			n = append(n, p.X)
			x = append(x, v)
		}
	}
	return n, x
}
