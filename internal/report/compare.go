package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"contend/analysis"
	"contend/internal/env"
	"contend/internal/evidence"
	"contend/internal/results"
	"contend/internal/units"
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

// CompareOptions configures Compare and BuildComparison. The zero value
// gives the defaults.
type CompareOptions struct {
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
}

// Analysis is the options of each metric's comparison (analysis.Compare):
// the test, the level and the noise band.
func (o CompareOptions) Analysis() analysis.CompareOptions {
	return analysis.CompareOptions{Test: o.Test, Alpha: o.Alpha, Threshold: o.Threshold}
}

// ErrIncompatible wraps the errors of BuildComparison that come from its
// input (different workloads, a metric without data): the command line
// reports them as usage errors.
var ErrIncompatible = errors.New("cannot compare")

func incompatible(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrIncompatible, fmt.Sprintf(format, a...))
}

// A CompareReport is the comparison of every side after the first with the
// first (the baseline): what Compare prints, for callers that want the
// numbers.
type CompareReport struct {
	Workload string
	Options  CompareOptions // with defaults filled in
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
	// workload compared with an external program's results.
	Warnings []string
	// Boots holds the boot-level comparison of each pair whose
	// repetitions record their boots (boots.go).
	Boots []BootLevel
	// OneSided are the evidence metrics only some sides have values of
	// (evidence.go): not compared, and said so.
	OneSided []OneSided

	sideParts [][]Part
}

// A SideReport is a side with its counts.
type SideReport struct {
	Label  string // A, B, C ...
	Name   string
	Parts  []string
	Counts map[string]int // measured repetitions by status, all parts
	// measured are the successful measured repetitions, in the side's
	// order, and metrics each metric's values among them: 20 bytes a
	// value, or 12 where the value is the file's own column (a side of
	// one file whose every repetition is measured and has the metric).
	measured []origin
	metrics  map[string]sideMetric
	// rows, when set, are the side's one file whose every repetition is
	// measured, of one configuration: measured[i] is then row i's origin,
	// not stored.
	rows *results.Columns
}

// len returns the number of measured repetitions.
func (s *SideReport) len() int {
	if s.rows != nil {
		return s.rows.Len()
	}
	return len(s.measured)
}

// originAt returns the origin of measured repetition p.
func (s *SideReport) originAt(p int) origin {
	if s.rows != nil {
		return origin{0, int32(s.rows.Index(p)), int32(p + 1)}
	}
	return s.measured[p]
}

// origin is where a measured repetition of a side comes from.
type origin struct {
	part, rep int32
	ord       int32 // number among the measured repetitions of its configuration, from 1
}

// sideMetric holds a metric's values on a side: vals[i] is of repetition
// measured[at[i]], or measured[i] when at is nil.
type sideMetric struct {
	vals []float64
	at   []int32
}

// obs is one value with where it came from.
type obs struct {
	origin
	v float64
}

// values returns the values of metric in the side's order, shared by
// every caller (maybe the file's own column): not to be changed.
func (s *SideReport) values(metric string) []float64 {
	return s.metrics[metric].vals
}

// count returns the number of values of metric.
func (s *SideReport) count(metric string) int { return len(s.metrics[metric].vals) }

// origin returns where value i of metric comes from.
func (s *SideReport) origin(metric string, i int) origin {
	if at := s.metrics[metric].at; at != nil {
		return s.originAt(int(at[i]))
	}
	return s.originAt(i)
}

// obsOf returns the values of metric with where each comes from.
func (s *SideReport) obsOf(metric string) []obs {
	xs := s.values(metric)
	out := make([]obs, len(xs))
	for i, x := range xs {
		out[i] = obs{s.origin(metric, i), x}
	}
	return out
}

// A PairReport compares side B with side A (indices into Sides).
type PairReport struct {
	A, B int
	Rows []MetricRow
}

// A MetricRow is one metric of a PairReport.
type MetricRow struct {
	Metric    results.Metric
	Direction analysis.Direction
	// Identical is true when every value on both sides is the same
	// number (such as a page count fixed by the parameters): nothing to
	// test, and not counted in the Holm families.
	Identical bool
	Cmp       *analysis.Comparison // nil when Identical
}

// A Diff is a parameter or environment key whose value differs; Values
// has one entry per side (distinct values of its parts joined by " | ").
type Diff struct {
	Key    string
	Values []string
}

// OutlierMinN is the smallest sample checked for outliers. With 3 values
// the modified z-score compares the two outer distances to the median
// with each other, and flags one whenever it is 5.2 times the other:
// noise, not evidence.
const OutlierMinN = 4

// OutlierMinShift is the smallest distance from the median, relative to
// the median, at which a repetition is reported as an outlier. Counters
// that are nearly constant (page faults of a fixed mapping) have a median
// absolute deviation near 0, so a difference of a few counts in 65000
// gets a modified z-score of 50: a repetition is an outlier only when its
// z-score is above analysis.OutlierThreshold and it is at least 1% away
// from the median.
const OutlierMinShift = 0.01

// OutlierListMax is the most outliers the text report lists; the JSON
// report lists every one.
const OutlierListMax = 8

// An Outlier is a repetition whose modified z-score exceeds
// analysis.OutlierThreshold. It is reported, never dropped.
type Outlier struct {
	Side   int
	Metric string
	Part   string
	Rep    int // repetition index in its file, from 0
	Ord    int // its number among the measured repetitions of its configuration, from 1
	Value  float64
	Z      float64
}

// A WithinCheck tests whether two files of one pooled side differ more
// than their noise allows (Mann-Whitney U, Holm-adjusted over every such
// test). When the test cannot reach Alpha, Separated tells whether the
// values of the two files do not overlap at all.
type WithinCheck struct {
	Side         int
	Metric       string
	PartA, PartB string
	MedianA      float64
	MedianB      float64
	P, AdjustedP float64
	CanTest      bool
	Separated    bool
	Differ       bool // AdjustedP <= Alpha
}

// Compare writes the comparison of sides[1:] against sides[0] to w in
// format (see CompareFormats).
func Compare(w io.Writer, sides []Side, opt CompareOptions, format string) error {
	r, err := BuildComparison(sides, opt)
	if err != nil {
		return err
	}
	return r.Write(w, format)
}

// CompareFormats are the formats Write accepts.
var CompareFormats = []string{"text", "markdown", "csv", "json", "bench"}

// Write renders r in format.
func (r *CompareReport) Write(w io.Writer, format string) error {
	switch format {
	case "", "text":
		return r.writeText(w)
	case "markdown":
		return r.writeMarkdown(w)
	case "csv":
		return r.writeCSV(w)
	case "json":
		return r.writeJSON(w)
	case "bench":
		return r.writeBench(w)
	}
	return fmt.Errorf("unknown format %q; one of %s", format, strings.Join(CompareFormats, ", "))
}

// BuildComparison checks the sides and compares each side after the first
// with the first, metric by metric, Holm-adjusting the p-values (see
// CompareOptions.OneFamily). Errors that come from the input wrap
// ErrIncompatible.
func BuildComparison(sides []Side, opt CompareOptions) (*CompareReport, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if len(sides) < 2 {
		return nil, incompatible("need a baseline and at least one other side, got %d", len(sides))
	}
	r := &CompareReport{Options: opt}
	for i, s := range sides {
		if len(s.Parts) == 0 {
			return nil, incompatible("side %s has no files", s.Name)
		}
		for _, p := range s.Parts {
			if p.File == nil {
				return nil, incompatible("%s: no result file", p.Name)
			}
			if len(p.Configs) == 0 {
				return nil, incompatible("%s: no configuration selected", p.Name)
			}
			for _, c := range p.Configs {
				if c < 0 || c >= len(p.File.Configs) {
					return nil, incompatible("%s: no configuration %d", p.Name, c)
				}
			}
			first := sides[0].Parts[0]
			if r.Workload == "" {
				r.Workload = p.File.Workload
			} else if p.File.Workload != r.Workload {
				// Results of external programs (exec, import) carry
				// the program's name, not a workload's: they may be
				// compared with anything whose metrics they share.
				if !comparableWorkloads(first.File.Workload, p.File.Workload) {
					return nil, incompatible("different workloads: %s is %s, %s is %s",
						first.Name, r.Workload, p.Name, p.File.Workload)
				}
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s (%s) is compared with %s (%s): make sure they measure the same thing",
					first.Name, r.Workload, p.Name, p.File.Workload))
			}
		}
		r.Sides = append(r.Sides, collectSide(sideLabel(i), s))
		r.sideParts = append(r.sideParts, s.Parts)
	}
	r.Warnings = append(r.Warnings, fileWarnings(sides)...)
	if err := r.selectMetrics(sides); err != nil {
		return nil, err
	}
	r.OneSided = r.oneSidedEvidence(sides)
	r.ParamDiffs = paramDiffs(sides)
	r.EnvDiffs = envDiffs(sides)
	r.BuildDiffs = buildDiffs(r.EnvDiffs)
	r.Causes = envCauses(r.EnvDiffs, r.Sides)

	// The outliers are found on another goroutine while the sides are
	// compared (a tenth of compare's time for 2 x 100,000 values): both
	// only read the sides, whose values are made here, before either.
	for si := range r.Sides {
		for _, m := range r.Metrics {
			r.Sides[si].values(m.Name)
		}
	}
	outliers := make(chan []Outlier, 1) // never blocks: an early return leaves it
	go func() { outliers <- r.outliers() }()
	base := opt.Analysis()
	var head, rest, ev []*analysis.Comparison
	for b := 1; b < len(r.Sides); b++ {
		pr := PairReport{A: 0, B: b}
		for _, m := range r.Metrics {
			xa, xb := r.Sides[0].values(m.Name), r.Sides[b].values(m.Name)
			row := MetricRow{Metric: m, Direction: direction(m.Better)}
			if allEqual(xa, xb) {
				row.Identical = true
				pr.Rows = append(pr.Rows, row)
				continue
			}
			o := base
			o.Better = row.Direction
			c, err := analysis.Compare(xa, xb, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", m.Name, err)
			}
			row.Cmp = &c
			if m.Name == r.Headline && !opt.OneFamily {
				head = append(head, row.Cmp)
			} else if evidence.IsEvidence(m.Name) && !opt.OneFamily {
				ev = append(ev, row.Cmp)
			} else {
				rest = append(rest, row.Cmp)
			}
			pr.Rows = append(pr.Rows, row)
		}
		sortEvidenceRows(pr.Rows)
		r.Pairs = append(r.Pairs, pr)
	}
	r.Outliers = <-outliers
	for _, fam := range [][]*analysis.Comparison{head, rest, ev} {
		if err := analysis.AdjustHolm(fam); err != nil {
			return nil, err
		}
	}
	r.Families = r.describeFamilies(len(head), len(rest))
	if len(ev) > 0 {
		r.Families = append(r.Families, evidenceFamily(len(ev)))
	}
	if err := r.checkWithin(); err != nil {
		return nil, err
	}
	r.buildBootLevel()
	return r, nil
}

func sideLabel(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("S%d", i+1)
}

func collectSide(label string, s Side) SideReport {
	sr := SideReport{Label: label, Name: s.Name, Counts: map[string]int{}, metrics: map[string]sideMetric{}}
	for pi, p := range s.Parts {
		sr.Parts = append(sr.Parts, p.Name)
		sel := map[int]bool{}
		for _, c := range p.Configs {
			sel[c] = true
		}
		// The file's columns, a metric at a time: which repetitions are
		// measured ones of the part, and their number in their
		// configuration, then each metric's column.
		cols := p.File.Columns()
		nok := 0
		for i := range cols.Len() {
			if !cols.Warmup(i) && sel[cols.Config(i)] {
				st := cols.Status(i)
				sr.Counts[st]++
				if st == results.StatusOK {
					nok++
				}
			}
		}
		first := sr.len()
		var rows []int32 // the file's row of each measured repetition; nil: every row
		if len(s.Parts) == 1 && nok == cols.Len() && len(p.Configs) == 1 {
			// Every repetition of the one file, of one configuration:
			// where each comes from is its row.
			sr.rows = cols
		} else {
			rows = make([]int32, 0, nok)
			if sr.measured == nil {
				sr.measured = make([]origin, 0, nok)
			}
			ord := map[int]int{}
			for i := range cols.Len() {
				c := cols.Config(i)
				if cols.Warmup(i) || !sel[c] {
					continue
				}
				ord[c]++
				if cols.Status(i) == results.StatusOK {
					sr.measured = append(sr.measured, origin{int32(pi), int32(cols.Index(i)), int32(ord[c])})
					rows = append(rows, int32(i))
				}
			}
		}
		row := func(j int) int {
			if rows == nil {
				return j
			}
			return int(rows[j])
		}
		for _, k := range cols.Names() {
			vals, has := cols.Metric(k)
			m := sr.metrics[k]
			if m.vals == nil && rows == nil && !slices.Contains(has, false) {
				sr.metrics[k] = sideMetric{vals: vals} // every row, in order: the column itself
				continue
			}
			for j := range nok {
				i := row(j)
				if !has[i] {
					continue
				}
				if m.vals == nil {
					m.vals = make([]float64, 0, nok) // most have every metric
				}
				if m.at == nil && len(m.vals) != first+j {
					// A repetition before this one lacks the metric.
					m.at = make([]int32, len(m.vals), cap(m.vals))
					for x := range m.at {
						m.at[x] = int32(x)
					}
				}
				m.vals = append(m.vals, vals[i])
				if m.at != nil {
					m.at = append(m.at, int32(first+j))
				}
			}
			if m.vals != nil {
				sr.metrics[k] = m
			}
		}
	}
	return sr
}

// selectMetrics fills r.Metrics and r.Headline.
func (r *CompareReport) selectMetrics(sides []Side) error {
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
			if s.count(name) == 0 {
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

func (r *CompareReport) describeFamilies(nHead, nRest int) []string {
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

// paramDiffs lists the parameters whose values differ between any two
// parts.
func paramDiffs(sides []Side) []Diff {
	var order []string
	seen := map[string]bool{}
	per := func(p Part, name string) []string {
		var vs []string
		for _, c := range p.Configs {
			for _, pa := range p.File.Configs[c].Params {
				if pa.Name == name {
					d := pa.Shown()
					vs = append(vs, d)
				}
			}
		}
		if len(vs) == 0 {
			return []string{"(none)"}
		}
		return vs
	}
	for _, s := range sides {
		for _, p := range s.Parts {
			for _, c := range p.Configs {
				for _, pa := range p.File.Configs[c].Params {
					if !seen[pa.Name] {
						seen[pa.Name] = true
						order = append(order, pa.Name)
					}
				}
			}
		}
	}
	var out []Diff
	for _, name := range order {
		all := map[string]bool{}
		var vals []string
		for _, s := range sides {
			var vs []string
			for _, p := range s.Parts {
				for _, v := range per(p, name) {
					all[v] = true
					vs = append(vs, v)
				}
			}
			vals = append(vals, joinDistinct(vs))
		}
		if len(all) > 1 {
			out = append(out, Diff{Key: name, Values: vals})
		}
	}
	return out
}

// partEnv is the fingerprint of a part: the file's environment with the
// settings of its configurations.
func partEnv(p Part) env.Fingerprint {
	fp := env.Fingerprint{}
	for k, v := range p.File.Env {
		fp[k] = v
	}
	for _, c := range p.Configs {
		for k, v := range p.File.Configs[c].Env {
			fp[k] = v
		}
	}
	return fp
}

// buildDiffs returns the keys of diffs that describe the build (sources,
// compilers, flags) and are recorded on every side: an older file without
// them says nothing about how it was built.
func buildDiffs(diffs []Diff) []string {
	var out []string
	for _, d := range diffs {
		if !env.BuildKey(d.Key) || strings.Contains(strings.Join(d.Values, "\x00"), "(not recorded)") {
			continue
		}
		out = append(out, d.Key)
	}
	return out
}

// thpKeys are the fingerprint's transparent huge page settings.
var thpKeys = []string{"thp.enabled", "thp.defrag", "thp.use_zero_page"}

// envCauses returns a warning for each known cause among diffs: THP set
// differently on the sides (always against madvise or never, or a kernel
// without THP) changes page faults, memory and their times by itself.
// A value not recorded by a side is no evidence of a difference.
func envCauses(diffs []Diff, sides []SideReport) []string {
	var thp []string
	for _, d := range diffs {
		if !slices.Contains(thpKeys, d.Key) || strings.Contains(strings.Join(d.Values, "\x00"), "(not recorded)") {
			continue
		}
		var vs []string
		for i, v := range d.Values {
			if v == "" {
				v = "(unknown)"
			}
			vs = append(vs, sides[i].Label+" "+v)
		}
		if d.Key == "thp.enabled" {
			// The setting that decides: the others follow from it
			// (and are "not built" with it).
			thp = []string{d.Key + ": " + strings.Join(vs, ", ")}
			break
		}
		thp = append(thp, d.Key+": "+strings.Join(vs, ", "))
	}
	if len(thp) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("transparent huge pages differ between the sides (%s): that alone changes page faults, "+
		"memory and their times (THP 'always' maps the huge zero page on read faults, one fault per 2 MiB instead of one per "+
		"4 KiB page); compare with the same THP setting, or run faultme with --thp never on every side", strings.Join(thp, "; "))}
}

// envDiffs lists the environment keys (env.Diff) that differ between any
// two parts.
func envDiffs(sides []Side) []Diff {
	var fps []env.Fingerprint
	var side []int
	for i, s := range sides {
		for _, p := range s.Parts {
			fps = append(fps, partEnv(p))
			side = append(side, i)
		}
	}
	differ := map[string]bool{}
	union := env.Fingerprint{}
	for i := range fps {
		for k := range fps[i] {
			union[k] = ""
		}
		for j := i + 1; j < len(fps); j++ {
			for _, k := range env.Diff(fps[i], fps[j]) {
				differ[k] = true
			}
		}
	}
	var out []Diff
	for _, k := range union.Keys() {
		if !differ[k] {
			continue
		}
		d := Diff{Key: k, Values: make([]string, len(sides))}
		vs := make([][]string, len(sides))
		for i, fp := range fps {
			v, ok := fp[k]
			if !ok {
				v = "(not recorded)"
			}
			vs[side[i]] = append(vs[side[i]], v)
		}
		for i := range sides {
			d.Values[i] = joinDistinct(vs[i])
		}
		out = append(out, d)
	}
	return out
}

func joinDistinct(vs []string) string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, " | ")
}

// outliers returns the outliers of every side, side by side.
func (r *CompareReport) outliers() []Outlier {
	var out []Outlier
	for si := range r.Sides {
		out = append(out, sideOutliers(&r.Sides[si], si, r.Metrics)...)
	}
	return out
}

// sideOutliers returns the outliers of side s (index si) in metrics.
func sideOutliers(s *SideReport, si int, metrics []results.Metric) []Outlier {
	var out []Outlier
	for _, m := range metrics {
		xs := s.values(m.Name)
		if len(xs) < OutlierMinN {
			continue
		}
		z, err := analysis.ModifiedZScores(xs)
		if err != nil {
			continue
		}
		med := math.NaN() // sorted for only when a score is high
		for i, zi := range z {
			if math.Abs(zi) <= analysis.OutlierThreshold {
				continue
			}
			if math.IsNaN(med) {
				med = analysis.Median(xs)
			}
			if math.Abs(xs[i]-med) >= OutlierMinShift*math.Abs(med) {
				o := s.origin(m.Name, i)
				out = append(out, Outlier{
					Side: si, Metric: m.Name, Part: s.Parts[o.part],
					Rep: int(o.rep), Ord: int(o.ord), Value: xs[i], Z: zi,
				})
			}
		}
	}
	return out
}

// Outliers returns the outliers of config c of f (c < 0: all configs
// pooled), metric by metric: the successful measured repetitions whose
// modified z-score exceeds analysis.OutlierThreshold, computed over the
// repetitions of that metric (none below OutlierMinN values).
func Outliers(f *results.File, c int) []Outlier {
	var configs []int
	for i := range f.Configs {
		if c < 0 || i == c {
			configs = append(configs, i)
		}
	}
	s := collectSide("", Side{Parts: []Part{{File: f, Configs: configs}}})
	return sideOutliers(&s, 0, f.Metrics)
}

// WriteOutliers prints the outlier report of config c of f for show: one
// line per outlier, or one line saying there is none.
func WriteOutliers(w io.Writer, f *results.File, c int) {
	n := f.Counts(c)[results.StatusOK]
	if n < OutlierMinN {
		return
	}
	outs := Outliers(f, c)
	if len(outs) == 0 {
		fmt.Fprintf(w, "outliers: none (no modified z-score above %g)\n", analysis.OutlierThreshold)
		return
	}
	fmt.Fprintf(w, "outliers (modified z-score above %g; kept, not dropped):\n", analysis.OutlierThreshold)
	for _, o := range outs {
		m, _ := f.Metric(o.Metric)
		fmt.Fprintf(w, "  %s %s: repetition %d, z = %.1f\n", o.Metric, units.Human(m.Unit, o.Value), o.Ord, o.Z)
	}
}

// checkWithin tests every pair of files of each pooled side against each
// other, every compared metric, and Holm-adjusts all these tests
// together.
func (r *CompareReport) checkWithin() error {
	var ps []float64
	var idx []int
	for si := range r.Sides {
		s := &r.Sides[si]
		if len(s.Parts) < 2 {
			continue
		}
		for _, m := range r.Metrics {
			byPart := make([][]float64, len(s.Parts))
			for i, x := range s.values(m.Name) {
				p := s.origin(m.Name, i).part
				byPart[p] = append(byPart[p], x)
			}
			for i := range byPart {
				for j := i + 1; j < len(byPart); j++ {
					a, b := byPart[i], byPart[j]
					if len(a) == 0 || len(b) == 0 || allEqual(a, b) {
						continue
					}
					wc := WithinCheck{Side: si, Metric: m.Name, PartA: s.Parts[i], PartB: s.Parts[j],
						MedianA: analysis.Median(a), MedianB: analysis.Median(b)}
					mw, err := analysis.MannWhitney(a, b, analysis.TwoSided)
					if err != nil {
						return err
					}
					wc.P = mw.P
					wc.CanTest = analysis.CanReachSignificance(len(a), len(b), r.Options.Alpha)
					wc.Separated = maxOf(a) < minOf(b) || maxOf(b) < minOf(a)
					ps = append(ps, mw.P)
					idx = append(idx, len(r.Within))
					r.Within = append(r.Within, wc)
				}
			}
		}
	}
	if len(ps) == 0 {
		return nil
	}
	adj, err := analysis.Holm(ps)
	if err != nil {
		return err
	}
	for k, i := range idx {
		r.Within[i].AdjustedP = adj[k]
		r.Within[i].Differ = r.Within[i].CanTest && adj[k] <= r.Options.Alpha
	}
	return nil
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

// timeLike tells whether a metric is a duration where lower is better:
// its verdicts are "faster" and "slower".
func timeLike(m results.Metric) bool { return m.Unit == "ns" && m.Better == "lower" }

// VerdictWord is the verdict of row in one word or phrase: faster/slower
// for durations, better/worse, increase/decrease, "no significant
// change", "within noise", "too few runs", or "identical".
func VerdictWord(row MetricRow) string {
	if row.Identical {
		return "identical"
	}
	switch v := row.Cmp.Verdict; v {
	case analysis.VerdictBetter:
		if timeLike(row.Metric) {
			return "faster"
		}
		return "better"
	case analysis.VerdictWorse:
		if timeLike(row.Metric) {
			return "slower"
		}
		return "worse"
	default:
		return string(v)
	}
}

// testName is the short name of the test for headlines.
func testName(t analysis.Test) string {
	if t == analysis.TestWelch {
		return "Welch t"
	}
	return "U test"
}

// FormatP renders a p-value with two significant digits, "<0.001" below
// 0.001.
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.2g", p)
}

// pctRange renders a relative interval as "[-47.1%, -38.0%]".
func pctRange(lo, hi float64) string {
	return "[" + units.Percent(lo) + ", " + units.Percent(hi) + "]"
}

// ChangeCells returns the printed change of c, of a metric of unit, and
// its interval ("" when there is none): the Hodges-Lehmann relative
// change in percent, or, where every value is >= 0 and some is 0
// (analysis.RelAbsShift), the Hodges-Lehmann shift B-A in the metric's
// unit: no ratio is defined at 0, and the shift's interval over median(A)
// could fall below -100%, which a non-negative quantity cannot.
func ChangeCells(c *analysis.Comparison, unit string) (est, interval string) {
	if c.ChangeMethod != analysis.RelAbsShift {
		if c.HasChangeCI {
			interval = pctRange(c.ChangeLo, c.ChangeHi)
		}
		return units.Percent(c.Estimate), interval
	}
	sc := rowScale(unit, c.SummaryA.Median, c.SummaryB.Median)
	if c.SummaryA.Median == 0 && c.SummaryB.Median == 0 {
		sc = units.ScaleFor(unit, c.Shift)
	}
	if c.HasShiftCI {
		interval = "[" + signed(sc.Num(c.ShiftLo)) + ", " + signed(sc.Num(c.ShiftHi)) + "]"
	}
	return signed(sc.Format(c.Shift)), interval
}

// rowScale is the scale of a row of medians ma (of A) and mb: that of ma,
// or of mb where ma is 0 (a row of 0 ns against 35 ms is in ms).
func rowScale(unit string, ma, mb float64) units.Scale {
	if ma == 0 {
		return units.ScaleFor(unit, mb)
	}
	return units.ScaleFor(unit, ma)
}

// signed puts a plus sign before a printed number that has no sign.
func signed(num string) string {
	if num == "-" || strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
		return num
	}
	return "+" + num
}

// HeadlineFor is the one-line summary of the headline metric of pair p, as
// a person would write it in a mail: the medians of A and B, the
// Hodges-Lehmann estimate of the change with its interval (one estimator,
// so the estimate lies inside its interval), the test and the verdict:
//
//	faultme time: 11.30 s -> 6.61 s, HL -41.4% [-64.8%, -39.5%], p=0.016 (U test, n=5+4): faster
//
// When the change of the medians and the estimate or the test disagree
// (see analysis.Comparison.Disagreement), the headline ends saying so.
func (r *CompareReport) HeadlineFor(p PairReport) string {
	var row MetricRow
	for _, x := range p.Rows {
		if x.Metric.Name == r.Headline {
			row = x
		}
	}
	m := row.Metric
	xa, xb := r.Sides[p.A].values(m.Name), r.Sides[p.B].values(m.Name)
	ma, mb := rowMedians(row, xa, xb)
	sc := rowScale(m.Unit, ma, mb)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s -> %s", r.Workload, m.Name, sc.Format(ma), sc.Format(mb))
	if row.Identical {
		fmt.Fprintf(&b, " (n=%d+%d): identical values", len(xa), len(xb))
		return b.String()
	}
	c := row.Cmp
	if est, ci := ChangeCells(c, m.Unit); c.ChangeMethod == analysis.RelAbsShift && !math.IsNaN(c.Shift) {
		fmt.Fprintf(&b, ", HL shift %s", est)
		if ci != "" {
			fmt.Fprintf(&b, " %s", ci)
		}
	} else if !math.IsNaN(c.Estimate) && !math.IsInf(c.Estimate, 0) {
		fmt.Fprintf(&b, ", HL %s", est)
		if ci != "" {
			fmt.Fprintf(&b, " %s", ci)
		}
	}
	p1 := "p=" + FormatP(c.AdjustedP)
	if strings.HasPrefix(FormatP(c.AdjustedP), "<") {
		p1 = "p" + FormatP(c.AdjustedP)
	}
	fmt.Fprintf(&b, ", %s (%s, n=%d+%d", p1, testName(c.Test), c.SummaryA.N, c.SummaryB.N)
	if c.FamilySize > 1 {
		fmt.Fprintf(&b, ", Holm over %d", c.FamilySize)
	}
	b.WriteString("): ")
	b.WriteString(verdictPhrase(row))
	if d := c.Disagreement(); d != "" {
		b.WriteString("; " + d)
	}
	return b.String()
}

// rowMedians returns the medians of xa and xb, the values of row: those
// its comparison computed (the same numbers) when it has one.
func rowMedians(row MetricRow, xa, xb []float64) (float64, float64) {
	if row.Cmp != nil {
		return row.Cmp.SummaryA.Median, row.Cmp.SummaryB.Median
	}
	return analysis.Median(xa), analysis.Median(xb)
}

// verdictPhrase is the verdict of row as the end of a headline.
func verdictPhrase(row MetricRow) string {
	c := row.Cmp
	switch c.Verdict {
	case analysis.VerdictNoChange:
		if !math.IsNaN(c.MDEUp) {
			return "no significant change (" + mdePhrase(c) + ")"
		}
		return "no significant change"
	case analysis.VerdictWithinNoise:
		return fmt.Sprintf("within noise (|change| < %s)", pctAbs(c.Threshold))
	case analysis.VerdictTooFewRuns:
		return "too few runs to tell"
	}
	return VerdictWord(row)
}

// mdePhrase says which changes the test of c would have found: the
// minimum detectable increase and decrease at its power, for its test and
// Holm family (a planning figure, see analysis.MinDetectableChange).
func mdePhrase(c *analysis.Comparison) string {
	up, down := !math.IsInf(c.MDEUp, 1), !math.IsInf(c.MDEDown, 1)
	switch {
	case up && down:
		return fmt.Sprintf("%.0f%% power to detect +%s or -%s", 100*c.Power, pctAbs(c.MDEUp), pctAbs(c.MDEDown))
	case up:
		return fmt.Sprintf("%.0f%% power to detect +%s, no decrease", 100*c.Power, pctAbs(c.MDEUp))
	case down:
		return fmt.Sprintf("%.0f%% power to detect -%s, no increase", 100*c.Power, pctAbs(c.MDEDown))
	}
	return fmt.Sprintf("too noisy to detect any change with %.0f%% power", 100*c.Power)
}

// pctAbs renders a positive fraction as a percentage with two significant
// digits: 0.123 -> "12%", 0.0123 -> "1.2%".
func pctAbs(x float64) string {
	v := 100 * math.Abs(x)
	if v >= 10 {
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.2g%%", v)
}

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
