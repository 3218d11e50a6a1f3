package comparison

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"contend/analysis"
	"contend/internal/evidence"
	"contend/internal/results"
)

// A Part is a set of repetitions taken from one result file: the
// successful, measured repetitions of the configurations Configs (indices
// into File.Configs).
type Part struct {
	// Name names the part in reports: a file name, "ab.json:a".
	Name    string
	File    *results.File
	Configs []int
}

// A Side is one side of a comparison: the repetitions of its parts,
// pooled. Name is how reports name it ("before.json", "a").
type Side struct {
	Name  string
	Parts []Part
}

// FileSide returns a side of one part: configs of f (config 0 when none
// is given), named name.
func FileSide(name string, f *results.File, configs ...int) Side {
	if len(configs) == 0 {
		configs = []int{0}
	}
	return Side{Name: name, Parts: []Part{{Name: name, File: f, Configs: configs}}}
}

// Options configures Compare and Build. The zero value
// gives the defaults.
type Options struct {
	// Alpha is the significance level (0 means 0.05), Threshold the
	// relative noise band under which a significant change is "within
	// noise" (0.02 is 2%; 0 disables it), Test the hypothesis test.
	Alpha     float64
	Threshold float64
	Test      analysis.Test
	// Metrics lists the metrics to compare; empty means every metric
	// with data on all sides, the workload's primary metric first.
	Metrics []string
	// OneFamily adjusts the headline metric together with the other
	// metrics. By default the headline metric (the primary metric, or
	// the first of Metrics) forms its own Holm family over the side
	// pairs, and the other metrics a second family.
	OneFamily bool
	// BootCost is the cost of one boot for the boot-level recommendation
	// (0: AssumedBootCost, said so); see boots.go.
	BootCost time.Duration
	// BootCostMeasured: BootCost came from a campaign's ledger (else it
	// was given, --boot-cost).
	BootCostMeasured bool
	// BootInfo is what a campaign's ledger knows of each boot, by boot
	// id (the per-boot table's settling); nil outside campaigns.
	BootInfo map[string]BootInfo
	// Confidence is the coverage of the intervals of the medians and of
	// the changes (0: Confidence, 95%). A sequential A/B test sets 1 - the
	// level of its last look, so that the interval printed is the one
	// that matches its decision (a repeated confidence interval).
	Confidence float64
}

// Level is the coverage of the intervals: Confidence, or the package's
// Confidence when it is 0.
func (o Options) Level() float64 {
	if o.Confidence == 0 {
		return Confidence
	}
	return o.Confidence
}

// Analysis is the options of each metric's comparison (analysis.Compare):
// the test, the level, the noise band and the intervals' coverage.
func (o Options) Analysis() analysis.CompareOptions {
	return analysis.CompareOptions{Test: o.Test, Alpha: o.Alpha, Threshold: o.Threshold, Confidence: o.Confidence}
}

// ErrIncompatible wraps the errors of Build that come from its
// input (different workloads, a metric without data): the command line
// reports them as usage errors.
var ErrIncompatible = errors.New("cannot compare")

func incompatible(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrIncompatible, fmt.Sprintf(format, a...))
}

// A Comparison is the comparison of every side after the first with the
// first (the baseline): what Compare prints, for callers that want the
// numbers.
type Comparison struct {
	Workload string
	Options  Options // with defaults filled in
	Sides    []SideReport
	// Metrics are the metrics compared, Headline first.
	Metrics  []results.Metric
	Headline string
	// Pairs holds one comparison per side after the first, against it.
	Pairs []PairReport
	// Families describes the Holm families in words.
	Families   []string
	ParamDiffs []Diff
	EnvDiffs   []Diff
	// BuildDiffs are the keys of EnvDiffs that say contend was built
	// differently (env.BuildKey), recorded by every part.
	BuildDiffs []string
	// Causes name the environment differences known to change what is
	// measured by themselves (transparent huge pages), shown as warnings
	// before the headline.
	Causes   []string
	Outliers []Outlier
	// Within holds the checks between the files of a pooled side.
	Within []WithinCheck
	// Warnings are about the comparison as a whole, such as a built-in
	// workload compared with an external program's results, then the
	// warnings of the files (FileWarnings, each prefixed with its file's
	// name).
	Warnings []string
	// FileWarnings are the warnings the files of the sides recorded, in
	// the order of the sides and their parts: the brief report counts
	// them per side where sides pool files (a campaign's boots).
	FileWarnings []FileWarning
	// Boots holds the boot-level comparison of each pair whose
	// repetitions record their boots (boots.go).
	Boots []BootLevel
	// OneSided are the evidence metrics only some sides have values of
	// (evidence.go): not compared, and said so.
	OneSided []OneSided
	// MedianCIMin is the fewest values of which a median has an
	// interval at Options.Level (fewer: "-" in the tables).
	MedianCIMin int
	// PerBoot holds every boot of every side on the headline metric, in
	// the order of the plan or of their first runs, when the boot is the
	// unit (BootUnit; bootunit.go).
	PerBoot []PerBoot

	parts [][]Part // the parts of each side
}

// Build checks the sides and compares each side after the first
// with the first, metric by metric, Holm-adjusting the p-values (see
// Options.OneFamily). Errors that come from the input wrap
// ErrIncompatible.
func Build(sides []Side, opt Options) (*Comparison, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if len(sides) < 2 {
		return nil, incompatible("need a baseline and at least one other side, got %d", len(sides))
	}
	r := &Comparison{Options: opt}
	for i, s := range sides {
		if len(s.Parts) == 0 {
			return nil, incompatible("side %s has no files", s.Name)
		}
		for _, p := range s.Parts {
			if err := r.checkPart(sides[0].Parts[0], p); err != nil {
				return nil, err
			}
		}
		r.Sides = append(r.Sides, collectSide(sideLabel(i), s))
		r.parts = append(r.parts, s.Parts)
	}
	r.FileWarnings = fileWarnings(sides)
	for _, x := range r.FileWarnings {
		r.Warnings = append(r.Warnings, x.String())
	}
	if err := r.selectMetrics(sides); err != nil {
		return nil, err
	}
	r.OneSided = r.oneSidedEvidence(sides)
	r.ParamDiffs = paramDiffs(sides)
	r.EnvDiffs = envDiffs(sides)
	r.BuildDiffs = buildDiffs(r.EnvDiffs)
	r.Causes = envCauses(r.EnvDiffs, r.Sides)
	r.Causes = append(r.Causes, vmNotes(sides)...) // vm.go

	head, rest, ev, prof, err := r.comparePairs()
	if err != nil {
		return nil, err
	}
	for _, fam := range [][]*analysis.Comparison{head, rest, ev, prof} {
		if err := analysis.AdjustHolm(fam); err != nil {
			return nil, err
		}
	}
	r.Families = r.describeFamilies(len(head), len(rest))
	if len(ev) > 0 {
		r.Families = append(r.Families, evidenceFamily(len(ev)))
	}
	if len(prof) > 0 {
		r.Families = append(r.Families, profileFamily(len(prof)))
	}
	r.Causes = append(r.Causes, r.stealNotes()...) // steal.go
	if err := r.checkWithin(); err != nil {
		return nil, err
	}
	r.buildBootLevel()
	for i := range r.Pairs {
		p := &r.Pairs[i]
		p.Replication, p.ReplicationNote = r.ReplicationOf(*p)
		p.Instability = r.instability(*p)
	}
	if r.BootUnit() {
		r.PerBoot = r.perBoot()
	}
	r.MedianCIMin = analysis.MinSamplesForMedianCI(opt.Level())
	return r, nil
}

// DropFileWarnings removes the warnings of the files from r
// (FileWarnings and their lines at the end of Warnings), for a report
// whose run printed them already, or prints them as the file's own.
func (r *Comparison) DropFileWarnings() {
	r.Warnings = r.Warnings[:len(r.Warnings)-len(r.FileWarnings)]
	r.FileWarnings = nil
}

// checkPart checks part p of a side: a file, configurations it has, and
// the workload of the first part, first (or one whose results may be
// compared with it, with a warning); the workload is r's from the first
// part on.
func (r *Comparison) checkPart(first, p Part) error {
	if p.File == nil {
		return incompatible("%s: no result file", p.Name)
	}
	if len(p.Configs) == 0 {
		return incompatible("%s: no configuration selected", p.Name)
	}
	for _, c := range p.Configs {
		if c < 0 || c >= len(p.File.Configs) {
			return incompatible("%s: no configuration %d", p.Name, c)
		}
	}
	switch {
	case r.Workload == "":
		r.Workload = p.File.Workload
	case p.File.Workload != r.Workload:
		// Results of external programs (exec, import) carry the
		// program's name, not a workload's: they may be compared with
		// anything whose metrics they share.
		if !comparableWorkloads(first.File.Workload, p.File.Workload) {
			return incompatible("different workloads: %s is %s, %s is %s",
				first.Name, r.Workload, p.Name, p.File.Workload)
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s (%s) is compared with %s (%s): make sure they measure the same thing",
			first.Name, r.Workload, p.Name, p.File.Workload))
	}
	return nil
}

// comparePairs compares every side after the first with the first, metric
// by metric, finds the outliers of every side (r.Outliers), and returns
// the comparisons of each Holm family: the headline metric's, the other
// metrics', the evidence metrics', the profile's (all in rest with
// OneFamily). Metrics of unit "%" are compared in percentage points
// (analysis.CompareOptions.Points).
//
// It goes a metric at a time: each side's values sorted once, for the
// outliers (analysis.HighScores), then for the comparisons, which take
// the sorted copies as their scratch arrays
// (analysis.CompareSortedScratch; the baseline's copied for each pair
// but the last): at most one sorted copy of each side is held.
func (r *Comparison) comparePairs() (head, rest, ev, prof []*analysis.Comparison, err error) {
	base := r.Options.Analysis()
	nm, ns := len(r.Metrics), len(r.Sides)
	rows := make([]MetricRow, ns*nm) // side b's row of metric mi at b*nm+mi (b >= 1)
	errs := make([]error, ns*nm)
	outs := make([][]Outlier, ns*nm) // side si's outliers of metric mi at si*nm+mi
	for mi, m := range r.Metrics {
		sorted := r.sortedSides(m.Name)
		for si := range r.Sides {
			outs[si*nm+mi] = metricOutliers(&r.Sides[si], si, m, sorted[si])
		}
		for b := 1; b < ns; b++ {
			sa := sorted[0]
			if b < ns-1 {
				sa = slices.Clone(sa)
			}
			rows[b*nm+mi], errs[b*nm+mi] = r.compareMetric(b, m, sa, sorted[b], base)
		}
	}
	for si := range r.Sides {
		for mi := range r.Metrics {
			r.Outliers = append(r.Outliers, outs[si*nm+mi]...)
		}
	}
	for b := 1; b < ns; b++ {
		pr := PairReport{A: 0, B: b}
		for mi, m := range r.Metrics {
			if err := errs[b*nm+mi]; err != nil {
				return nil, nil, nil, nil, err
			}
			row := rows[b*nm+mi]
			switch {
			case row.Identical:
			case r.Options.OneFamily:
				rest = append(rest, row.Cmp)
			case m.Name == r.Headline:
				head = append(head, row.Cmp)
			case IsProfile(m.Name):
				prof = append(prof, row.Cmp)
			case evidence.IsEvidence(m.Name):
				ev = append(ev, row.Cmp)
			default:
				rest = append(rest, row.Cmp)
			}
			pr.Rows = append(pr.Rows, row)
		}
		sortEvidenceRows(pr.Rows)
		r.Pairs = append(r.Pairs, pr)
	}
	return head, rest, ev, prof, nil
}

// sortedParallelMin is the number of values from which sortedSides sorts
// the sides on several goroutines.
const sortedParallelMin = 1 << 14

// sortedSides returns each side's values of metric, sorted: sides of
// sortedParallelMin values or more two at a time (the sorts are
// independent; compare of 2 x 100,000 values has a CPU idle otherwise).
func (r *Comparison) sortedSides(metric string) [][]float64 {
	sorted := make([][]float64, len(r.Sides))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 1) // one sort on another goroutine, one here
	for si := range r.Sides {
		xs := r.Sides[si].Values(metric)
		if len(xs) < sortedParallelMin {
			sorted[si] = analysis.Sorted(xs)
			continue
		}
		select {
		case sem <- struct{}{}:
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				sorted[si] = analysis.Sorted(xs)
			}()
		default:
			sorted[si] = analysis.Sorted(xs)
		}
	}
	wg.Wait()
	return sorted
}

// compareMetric is the row of metric m of side b against side 0, whose
// values sorted are sa and sb, its scratch arrays.
func (r *Comparison) compareMetric(b int, m results.Metric, sa, sb []float64, base analysis.CompareOptions) (MetricRow, error) {
	xa, xb := r.Sides[0].Values(m.Name), r.Sides[b].Values(m.Name)
	row := MetricRow{Metric: m, Direction: direction(m.Better), NA: len(xa), NB: len(xb)}
	if allEqual(xa, xb) {
		row.Identical = true
		row.MedianA, row.MedianB = xa[0], xa[0]
		return row, nil
	}
	o := base
	o.Better = row.Direction
	o.Points = m.Unit == "%"
	c, err := analysis.CompareSortedScratch(xa, xb, sa, sb, o)
	if err != nil {
		return row, fmt.Errorf("%s: %v", m.Name, err)
	}
	row.Cmp = &c
	row.MedianA, row.MedianB = c.SummaryA.Median, c.SummaryB.Median
	return row, nil
}

func sideLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("S%d", i+1)
}

// selectMetrics fills r.Metrics and r.Headline.
func (r *Comparison) selectMetrics(sides []Side) error {
	f0 := sides[0].Parts[0].File
	describe := func(name string) (results.Metric, bool) {
		for _, s := range sides {
			for _, p := range s.Parts {
				if m, ok := p.File.Metric(name); ok {
					return m, true
				}
			}
		}
		return results.Metric{}, false
	}
	hasData := func(name string) (string, bool) {
		for _, s := range r.Sides {
			if s.Count(name) == 0 {
				return s.Label + " (" + s.Name + ")", false
			}
		}
		return "", true
	}
	if len(r.Options.Metrics) > 0 {
		seen := map[string]bool{}
		for _, name := range r.Options.Metrics {
			if seen[name] {
				continue
			}
			seen[name] = true
			m, ok := describe(name)
			if !ok {
				var names []string
				for _, m := range f0.Metrics {
					names = append(names, m.Name)
				}
				return incompatible("no metric %q in %s; its metrics: %s", name, r.Workload, strings.Join(names, ", "))
			}
			if side, ok := hasData(name); !ok {
				return incompatible("metric %s has no successful repetition on side %s", name, side)
			}
			r.Metrics = append(r.Metrics, m)
		}
		r.Headline = r.Metrics[0].Name
		for _, m := range r.Metrics {
			if m.Name == f0.Primary {
				r.Headline = m.Name
			}
		}
	} else {
		for _, m := range f0.Metrics {
			if _, ok := hasData(m.Name); ok {
				r.Metrics = append(r.Metrics, m)
			}
		}
		if len(r.Metrics) == 0 {
			var missing []string
			for _, s := range r.Sides {
				if s.Counts[results.StatusOK] == 0 {
					missing = append(missing, s.Label+" ("+s.Name+")")
				}
			}
			if len(missing) > 0 {
				return incompatible("no successful repetition on side %s", strings.Join(missing, ", "))
			}
			return incompatible("the sides share no metric with data")
		}
		r.Headline = r.Metrics[0].Name
		for _, m := range r.Metrics {
			if m.Name == f0.Primary {
				r.Headline = m.Name
			}
		}
	}
	// Headline first, the others in their order.
	sort.SliceStable(r.Metrics, func(i, j int) bool {
		return r.Metrics[i].Name == r.Headline && r.Metrics[j].Name != r.Headline
	})
	return nil
}

func direction(better string) analysis.Direction {
	switch better {
	case "lower":
		return analysis.LowerIsBetter
	case "higher":
		return analysis.HigherIsBetter
	}
	return analysis.NoDirection
}

func allEqual(a, b []float64) bool {
	if len(a) == 0 {
		return false
	}
	for _, xs := range [][]float64{a, b} {
		for _, x := range xs {
			if x != a[0] {
				return false
			}
		}
	}
	return true
}

func (r *Comparison) describeFamilies(nHead, nRest int) []string {
	tests := func(n int) string {
		if n == 1 {
			return "1 test"
		}
		return fmt.Sprintf("%d tests", n)
	}
	var out []string
	if nHead > 0 {
		out = append(out, fmt.Sprintf("%s: Holm over %s (one per side pair)", r.Headline, tests(nHead)))
	}
	if nRest > 0 {
		if r.Options.OneFamily {
			out = append(out, fmt.Sprintf("all metrics: Holm over %s together", tests(nRest)))
		} else {
			out = append(out, fmt.Sprintf("other metrics: Holm over %s together", tests(nRest)))
		}
	}
	return out
}

// TimeLike tells whether a metric is a duration where lower is better:
// its verdicts are "faster" and "slower".
func TimeLike(m results.Metric) bool { return m.Unit == "ns" && m.Better == "lower" }

// comparableWorkloads tells whether files of workloads a and b may be
// compared: the same workload, the same after an "import:" prefix (a log
// read with that workload's preset), or an external program ("exec:NAME"),
// whose name says nothing about what it measures.
func comparableWorkloads(a, b string) bool {
	if strings.HasPrefix(a, "exec:") || strings.HasPrefix(b, "exec:") {
		return true
	}
	return strings.TrimPrefix(a, "import:") == strings.TrimPrefix(b, "import:")
}

// Confidence is the level of the intervals contend prints (95%), but for
// those of a sequential A/B test (Options.Confidence).
const Confidence = 0.95

// SideParts returns the parts of side i, as given to Build.
func (r *Comparison) SideParts(i int) []Part { return r.parts[i] }

// Metric returns the compared metric called name (a bare one when none is).
func (r *Comparison) Metric(name string) results.Metric {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m
		}
	}
	return results.Metric{Name: name}
}
