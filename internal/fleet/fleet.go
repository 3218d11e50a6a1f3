// Package fleet compares a fleet: result files grouped by host (HostMarker,
// the playbook's status file: ReadStatus) or by an environment key (Key),
// B against A within each group (Groups, Build: each group a
// comparison.Comparison of its headline metric), the change across groups
// with the group as the unit (random effects), whether the groups agree,
// and the hosts without results; written as text or JSON (Report.Write,
// read back by contend-plot --fleet).
package fleet

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/env"
	"contend/internal/report"
	"contend/internal/results"
)

// A Group is what one host (or one value of the grouping key)
// contributes: its baseline side A and its other side B.
type Group struct {
	Key  string
	A, B comparison.Side
	// Skip, when set, says why the group has no sides to compare (its
	// files do not make two sides): it is listed as not compared.
	Skip string
}

// A Row is the headline comparison of one group.
type Row struct {
	Key    string
	Report *comparison.Comparison
	Row    comparison.MetricRow
	Env    env.Fingerprint // of the group's first file
}

// A Report compares B with A on every host of a fleet.
type Report struct {
	By string
	// Alpha is the significance level of every test (0.05 by default);
	// the fleet interval's coverage is 1 - Alpha.
	Alpha    float64
	Headline results.Metric
	Rows     []Row
	// Missing are the expected hosts without results, with the reason
	// the status file gives.
	Missing []Host
	// Partial are the hosts compared whose status is not ok (a run
	// killed or failed midway): their files hold what was done.
	Partial []Host
	// Untested are the groups with results too small for their test to
	// reach alpha (such as 2+2 runs): shown, but counted in nothing
	// (neither the Holm family, the direction nor the fleet estimate).
	Untested []Host
	// Fleet is the random-effects estimate of the change across the
	// tested groups (nil with fewer than two that have a log-scale
	// effect; FleetWhy then says why).
	Fleet    *analysis.MetaResult
	FleetWhy string
	// Agree is true when no tested group's change is significant in the
	// direction opposite to Majority, the direction of the fleet
	// estimate (or, without one, of most significant changes: +1
	// larger, -1 smaller, 0 none). Disagree lists the groups with a
	// significant change against it, with the environment keys in which
	// each differs from the first group that goes with it.
	Agree    bool
	Majority int
	Disagree []Disagreement
	Lo, Hi   float64 // smallest and largest estimate over the tested groups
}

// A Disagreement is a host whose change goes against the majority.
type Disagreement struct {
	Key       string            `json:"key"`
	Reference string            `json:"reference"`
	Diffs     []comparison.Diff `json:"diffs"` // Values: [this host, reference host]
}

// Build compares B with A within every group, Holm-adjusts the
// headline p-values over the groups that can be tested, combines their
// changes into a fleet estimate with hosts as a random factor
// (analysis.RandomEffects on each group's log ratio of geometric means:
// the estimate, its interval, and whether the change differs between
// groups), and checks whether the significant changes agree in
// direction. expected (may be nil) lists the hosts the fleet ran on;
// those without a group are Missing.
func Build(by string, groups []Group, expected []Host, opt comparison.Options) (*Report, error) {
	if len(groups) == 0 {
		return nil, incompatible("no host has results on both sides")
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Key < groups[j].Key })
	fr := &Report{By: by, Alpha: opt.Alpha, Lo: math.Inf(1), Hi: math.Inf(-1)}
	if fr.Alpha == 0 {
		fr.Alpha = 0.05
	}
	var head []*analysis.Comparison
	for _, g := range groups {
		if g.Skip != "" {
			fr.Missing = append(fr.Missing, Host{Name: g.Key, Status: "not-compared", Reason: g.Skip})
			continue
		}
		g.A.Name, g.B.Name = g.Key+" A", g.Key+" B"
		r, err := comparison.Build([]comparison.Side{g.A, g.B}, opt)
		if errors.Is(err, comparison.ErrIncompatible) {
			// A host whose run stopped before side B ran: named, not fatal.
			fr.Missing = append(fr.Missing, Host{Name: g.Key, Status: "not-compared", Reason: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Key, err)
		}
		if fr.Headline.Name == "" {
			fr.Headline = r.Metric(r.Headline)
		} else if r.Headline != fr.Headline.Name {
			return nil, incompatible("%s has headline metric %s, other hosts %s: give --metric", g.Key, r.Headline, fr.Headline.Name)
		}
		row := r.Pairs[0].Rows[0]
		for _, x := range r.Pairs[0].Rows {
			if x.Metric.Name == r.Headline {
				row = x
			}
		}
		fr.Rows = append(fr.Rows, Row{Key: g.Key, Report: r, Row: row, Env: comparison.PartEnv(g.A.Parts[0])})
		if row.Cmp != nil && row.Cmp.Verdict == analysis.VerdictTooFewRuns {
			nA, nB := len(r.Sides[0].Values(row.Metric.Name)), len(r.Sides[1].Values(row.Metric.Name))
			fr.Untested = append(fr.Untested, Host{Name: g.Key, Status: "too-small",
				Reason: fmt.Sprintf("%d+%d runs: the %s cannot reach p < %s with so few; not counted", nA, nB,
					report.TestName(row.Cmp.Test), analysis.FormatAlpha(fr.Alpha))})
			continue
		}
		if row.Cmp != nil {
			head = append(head, row.Cmp)
			fr.Lo = math.Min(fr.Lo, row.Cmp.Estimate)
			fr.Hi = math.Max(fr.Hi, row.Cmp.Estimate)
		}
	}
	if len(fr.Rows) == 0 {
		return nil, incompatible("no host has results to compare: %s", fr.Missing[0].Reason)
	}
	if err := analysis.AdjustHolm(head); err != nil {
		return nil, err
	}
	fr.combine(opt)
	compared, named := map[string]bool{}, map[string]bool{}
	for _, r := range fr.Rows {
		compared[r.Key] = true
	}
	for _, h := range fr.Missing {
		named[h.Name] = true // not compared, said why
	}
	for _, h := range expected {
		switch {
		case compared[h.Name] && h.Status != "ok":
			fr.Partial = append(fr.Partial, h)
		case named[h.Name]:
			for i := range fr.Missing {
				if fr.Missing[i].Name == h.Name && h.Status != "ok" {
					fr.Missing[i].Reason = h.Status + " " + h.Reason + "; " + fr.Missing[i].Reason
				}
			}
		case !compared[h.Name]:
			if h.Status == "ok" {
				h.Status, h.Reason = "no-results", "the status file says ok, but no result file of this host was given"
			}
			fr.Missing = append(fr.Missing, h)
		}
	}
	fr.direction()
	return fr, nil
}

// combine makes the fleet estimate from the tested rows.
func (fr *Report) combine(opt comparison.Options) {
	var es []analysis.Effect
	var without []string
	for _, r := range fr.Rows {
		if !fr.tested(r.Key) || r.Row.Identical || r.Row.Cmp == nil {
			continue
		}
		e, ok := analysis.LogRatioEffect(r.Report.Sides[0].Values(fr.Headline.Name), r.Report.Sides[1].Values(fr.Headline.Name))
		if !ok {
			without = append(without, r.Key)
			continue
		}
		es = append(es, e)
	}
	conf := 1 - fr.alpha()
	if len(es) < 2 {
		fr.FleetWhy = fmt.Sprintf("needs 2 or more tested %ss with positive values on both sides, has %d", fr.groupWord(), len(es))
		if len(without) > 0 {
			fr.FleetWhy += " (" + strings.Join(without, ", ") + ": a zero or no spread on both sides)"
		}
		return
	}
	m, err := analysis.RandomEffects(es, conf)
	if err != nil {
		fr.FleetWhy = err.Error()
		return
	}
	fr.Fleet = &m
	if len(without) > 0 {
		fr.FleetWhy = "without " + strings.Join(without, ", ") + " (a zero or no spread on both sides)"
	}
}

func (fr *Report) alpha() float64 { return fr.Alpha }

// tested tells whether the group key is counted (not Untested).
func (fr *Report) tested(key string) bool {
	for _, h := range fr.Untested {
		if h.Name == key {
			return false
		}
	}
	return true
}

// sign is the direction of a row's significant change: +1, -1, or 0 (no
// significant change, identical, or no estimate).
func (r Row) sign() int {
	if r.Row.Cmp == nil || !significantVerdict(r.Row.Cmp.Verdict) {
		return 0
	}
	if r.Row.Cmp.Estimate > 0 {
		return 1
	}
	return -1
}

func significantVerdict(v analysis.Verdict) bool {
	switch v {
	case analysis.VerdictBetter, analysis.VerdictWorse, analysis.VerdictIncrease, analysis.VerdictDecrease:
		return true
	}
	return false
}

func (fr *Report) direction() {
	count := map[int]int{}
	for _, r := range fr.Rows {
		if fr.tested(r.Key) {
			count[r.sign()]++
		}
	}
	switch {
	case fr.Fleet != nil && fr.Fleet.P < fr.alpha():
		fr.Majority = 1
		if fr.Fleet.Estimate < 0 {
			fr.Majority = -1
		}
	case count[1] > count[-1]:
		fr.Majority = 1
	case count[-1] > count[1]:
		fr.Majority = -1
	default:
		fr.Majority = 0
	}
	fr.Agree = fr.Majority == 0 && count[1] == 0 && count[-1] == 0 || fr.Majority != 0 && count[-fr.Majority] == 0
	var ref *Row
	for i := range fr.Rows {
		if fr.tested(fr.Rows[i].Key) && fr.Rows[i].sign() == fr.Majority {
			ref = &fr.Rows[i]
			break
		}
	}
	for _, r := range fr.Rows {
		if !fr.tested(r.Key) || r.sign() == 0 || r.sign() == fr.Majority {
			continue
		}
		if ref == nil {
			ref = &fr.Rows[0]
		}
		d := Disagreement{Key: r.Key, Reference: ref.Key}
		for _, k := range env.Diff(r.Env, ref.Env) {
			if k == "hostname" || k == "kernel.version" && r.Env["kernel.release"] != ref.Env["kernel.release"] {
				continue
			}
			d.Diffs = append(d.Diffs, comparison.Diff{Key: k, Values: []string{r.Env[k], ref.Env[k]}})
		}
		fr.Disagree = append(fr.Disagree, d)
	}
}

// directionWord names a direction of the headline metric.
func (fr *Report) directionWord(s int) string {
	m := fr.Headline
	switch {
	case s == 0:
		return "unchanged"
	case comparison.TimeLike(m):
		return map[int]string{1: "slower", -1: "faster"}[s]
	case m.Better == "higher":
		return map[int]string{1: "better", -1: "worse"}[s]
	case m.Better == "lower":
		return map[int]string{1: "worse", -1: "better"}[s]
	}
	return map[int]string{1: "larger", -1: "smaller"}[s]
}

// opposite tells whether the change of the medians and the HL change
// point opposite ways, both non-zero.
func opposite(c *analysis.Comparison) bool {
	return c.Change*c.Estimate < 0
}

func (fr *Report) count(s int) int {
	n := 0
	for _, r := range fr.Rows {
		if fr.tested(r.Key) && r.sign() == s {
			n++
		}
	}
	return n
}

func (fr *Report) rowSign(key string) int {
	for _, r := range fr.Rows {
		if r.Key == key {
			return r.sign()
		}
	}
	return 0
}

// incompatible is an error of Build's input: it wraps
// comparison.ErrIncompatible.
func incompatible(format string, a ...any) error {
	return fmt.Errorf("%w: %s", comparison.ErrIncompatible, fmt.Sprintf(format, a...))
}
