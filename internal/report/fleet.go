package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/env"
	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// HostMarker is the file the Ansible playbook (deploy/ansible) writes in
// each host's results directory, results/HOST/, holding the inventory name
// of the host. FleetKey reads it for --by host: hosts of a local inventory
// share one real hostname, and an inventory name is what people read.
const HostMarker = ".contend-host"

// FleetKey is the group of the result file at path for compare --by by:
// "host" (the inventory name in a HostMarker file in the file's directory
// or up to two directories above it, else the recorded environment's
// hostname), or "env.KEY" (the file's recorded environment value of KEY,
// such as env.cpu.model or env.kernel.release).
func FleetKey(path string, f *results.File, by string) (string, error) {
	switch {
	case by == "host":
		dir := filepath.Dir(path)
		for i := 0; i < 3; i++ {
			if b, err := os.ReadFile(filepath.Join(dir, HostMarker)); err == nil {
				if h := strings.TrimSpace(string(b)); h != "" {
					return h, nil
				}
			}
			dir = filepath.Dir(dir)
		}
		if h := f.Env["hostname"]; h != "" {
			return h, nil
		}
		return "", fmt.Errorf("%s records no hostname and has no %s file beside it: group it with --by env.KEY", path, HostMarker)
	case strings.HasPrefix(by, "env.") && len(by) > 4:
		k := by[4:]
		if v, ok := f.Env[k]; ok && v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%s records no environment key %q ('contend env' lists the keys)", path, k)
	}
	return "", fmt.Errorf("--by: %q is not accepted; accepted: host, env.KEY (a key of 'contend env', such as env.cpu.model)", by)
}

// A FleetGroup is what one host (or one value of the grouping key)
// contributes: its baseline side A and its other side B.
type FleetGroup struct {
	Key  string
	A, B comparison.Side
	// Skip, when set, says why the group has no sides to compare (its
	// files do not make two sides): it is listed as not compared.
	Skip string
}

// A FleetHost is an expected host and, when it gave no result, why: a
// line "HOST STATUS [REASON]" of the status file the playbook writes
// (results/fleet-status.txt).
type FleetHost struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// ReadFleetStatus reads a status file: one host per line, "HOST STATUS
// REASON...", '#' starts a comment.
func ReadFleetStatus(path string) ([]FleetHost, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var hs []FleetHost
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 2 {
			return nil, fmt.Errorf("%s:%d: want 'HOST STATUS [REASON]', got %q", path, i+1, line)
		}
		hs = append(hs, FleetHost{Name: fs[0], Status: fs[1], Reason: strings.Join(fs[2:], " ")})
	}
	return hs, nil
}

// A FleetRow is the headline comparison of one group.
type FleetRow struct {
	Key    string
	Report *comparison.Comparison
	Row    comparison.MetricRow
	Env    env.Fingerprint // of the group's first file
}

// A FleetReport compares B with A on every host of a fleet.
type FleetReport struct {
	By string
	// Alpha is the significance level of every test (0.05 by default);
	// the fleet interval's coverage is 1 - Alpha.
	Alpha    float64
	Headline results.Metric
	Rows     []FleetRow
	// Missing are the expected hosts without results, with the reason
	// the status file gives.
	Missing []FleetHost
	// Partial are the hosts compared whose status is not ok (a run
	// killed or failed midway): their files hold what was done.
	Partial []FleetHost
	// Untested are the groups with results too small for their test to
	// reach alpha (such as 2+2 runs): shown, but counted in nothing
	// (neither the Holm family, the direction nor the fleet estimate).
	Untested []FleetHost
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
	Disagree []FleetDisagreement
	Lo, Hi   float64 // smallest and largest estimate over the tested groups
}

// A FleetDisagreement is a host whose change goes against the majority.
type FleetDisagreement struct {
	Key       string            `json:"key"`
	Reference string            `json:"reference"`
	Diffs     []comparison.Diff `json:"diffs"` // Values: [this host, reference host]
}

// BuildFleet compares B with A within every group, Holm-adjusts the
// headline p-values over the groups that can be tested, combines their
// changes into a fleet estimate with hosts as a random factor
// (analysis.RandomEffects on each group's log ratio of geometric means:
// the estimate, its interval, and whether the change differs between
// groups), and checks whether the significant changes agree in
// direction. expected (may be nil) lists the hosts the fleet ran on;
// those without a group are Missing.
func BuildFleet(by string, groups []FleetGroup, expected []FleetHost, opt comparison.Options) (*FleetReport, error) {
	if len(groups) == 0 {
		return nil, incompatible("no host has results on both sides")
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Key < groups[j].Key })
	fr := &FleetReport{By: by, Alpha: opt.Alpha, Lo: math.Inf(1), Hi: math.Inf(-1)}
	if fr.Alpha == 0 {
		fr.Alpha = 0.05
	}
	var head []*analysis.Comparison
	for _, g := range groups {
		if g.Skip != "" {
			fr.Missing = append(fr.Missing, FleetHost{Name: g.Key, Status: "not-compared", Reason: g.Skip})
			continue
		}
		g.A.Name, g.B.Name = g.Key+" A", g.Key+" B"
		r, err := comparison.Build([]comparison.Side{g.A, g.B}, opt)
		if errors.Is(err, comparison.ErrIncompatible) {
			// A host whose run stopped before side B ran: named, not fatal.
			fr.Missing = append(fr.Missing, FleetHost{Name: g.Key, Status: "not-compared", Reason: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Key, err)
		}
		if fr.Headline.Name == "" {
			fr.Headline = metric(r, r.Headline)
		} else if r.Headline != fr.Headline.Name {
			return nil, incompatible("%s has headline metric %s, other hosts %s: give --metric", g.Key, r.Headline, fr.Headline.Name)
		}
		row := r.Pairs[0].Rows[0]
		for _, x := range r.Pairs[0].Rows {
			if x.Metric.Name == r.Headline {
				row = x
			}
		}
		fr.Rows = append(fr.Rows, FleetRow{Key: g.Key, Report: r, Row: row, Env: comparison.PartEnv(g.A.Parts[0])})
		if row.Cmp != nil && row.Cmp.Verdict == analysis.VerdictTooFewRuns {
			nA, nB := len(r.Sides[0].Values(row.Metric.Name)), len(r.Sides[1].Values(row.Metric.Name))
			fr.Untested = append(fr.Untested, FleetHost{Name: g.Key, Status: "too-small",
				Reason: fmt.Sprintf("%d+%d runs: the %s cannot reach p < %s with so few; not counted", nA, nB,
					testName(row.Cmp.Test), analysis.FormatAlpha(fr.Alpha))})
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
func (fr *FleetReport) combine(opt comparison.Options) {
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

func (fr *FleetReport) alpha() float64 { return fr.Alpha }

// tested tells whether the group key is counted (not Untested).
func (fr *FleetReport) tested(key string) bool {
	for _, h := range fr.Untested {
		if h.Name == key {
			return false
		}
	}
	return true
}

// sign is the direction of a row's significant change: +1, -1, or 0 (no
// significant change, identical, or no estimate).
func (r FleetRow) sign() int {
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

func (fr *FleetReport) direction() {
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
	var ref *FleetRow
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
		d := FleetDisagreement{Key: r.Key, Reference: ref.Key}
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
func (fr *FleetReport) directionWord(s int) string {
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

// Write writes the fleet report in format: text (also for markdown) or
// json.
func (fr *FleetReport) Write(w io.Writer, format string) error {
	if format == "json" {
		return fr.writeJSON(w)
	}
	if format != "text" {
		return incompatible("--format %s: a fleet comparison (--by) is written as text or json", format)
	}
	m := fr.Headline
	fmt.Fprintf(w, "Fleet: %s, B against A on %s (--by %s)\n", m.Name, plural.N(len(fr.Rows), "group", "groups"), fr.By)
	fmt.Fprintln(w, fr.acrossLine())
	if l := fr.betweenLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, fr.directionLine())
	if len(fr.Untested) > 0 {
		var ns []string
		for _, h := range fr.Untested {
			ns = append(ns, h.Name)
		}
		fmt.Fprintf(w, "Not tested (too few runs): %s\n", strings.Join(ns, ", "))
	}
	if len(fr.Missing) > 0 {
		var ns []string
		for _, h := range fr.Missing {
			ns = append(ns, h.Name)
		}
		fmt.Fprintf(w, "Missing: %s\n", strings.Join(ns, ", "))
	}
	fmt.Fprintln(w)
	t := &textfmt.Table{}
	t.AlignLeft(0, 6)
	t.Row(fr.groupWord(), "n A/B", "median A", "median B", "HL change [95% CI]", "adj p", "verdict")
	for _, r := range fr.Rows {
		nA, nB := len(r.Report.Sides[0].Values(m.Name)), len(r.Report.Sides[1].Values(m.Name))
		if r.Row.Identical || r.Row.Cmp == nil {
			t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB), "", "", "", "", "identical")
			continue
		}
		c := r.Row.Cmp
		sc := units.ScaleFor(m.Unit, math.Max(math.Abs(c.SummaryA.Median), math.Abs(c.SummaryB.Median)))
		ci, rng := ChangeCells(c, m.Unit)
		if rng != "" {
			ci += " " + rng
		}
		verdict, p := VerdictWord(r.Row), FormatP(c.AdjustedP)
		if !fr.tested(r.Key) {
			verdict, p = "not tested", "-"
		}
		if opposite(c) {
			verdict += " *"
		}
		t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB),
			sc.Format(c.SummaryA.Median), sc.Format(c.SummaryB.Median), ci, p, verdict)
	}
	t.Write(w)
	nt := len(fr.Rows) - len(fr.Untested)
	fmt.Fprintf(w, "\nadj p: Holm over the %s tested. Each group's full report: 'contend compare' on its files.\n", plural.N(nt, fr.groupWord(), fr.groupWord()+"s"))
	if fr.Fleet != nil {
		fmt.Fprintf(w, "Across %ss: random effects over the %s (hosts as a factor): each %s's log ratio of geometric means B/A, DerSimonian-Laird between-%s variance, interval and p from the modified Hartung-Knapp method on t(%d); between %ss: Welch's test of equal changes, I² the share of their variation beyond noise.\n",
			fr.groupWord(), plural.N(fr.Fleet.K, fr.groupWord(), fr.groupWord()+"s"), fr.groupWord(), fr.groupWord(), fr.Fleet.K-1, fr.groupWord())
	}
	for _, r := range fr.Rows {
		if r.Row.Cmp != nil && opposite(r.Row.Cmp) {
			writeWrapped(w, fmt.Sprintf("* %s: the medians moved %s, the HL change is %s: they point opposite ways (the samples differ in shape); look at its distributions before reading its verdict.",
				r.Key, units.Percent(r.Row.Cmp.Change), units.Percent(r.Row.Cmp.Estimate)), "  ")
		}
	}
	for _, d := range fr.Disagree {
		fmt.Fprintf(w, "\n%s goes the other way (%s); its environment against %s:\n", d.Key,
			fr.directionWord(fr.rowSign(d.Key)), d.Reference)
		if len(d.Diffs) == 0 {
			fmt.Fprintln(w, "  no difference recorded: suspect noise or the load of the machine")
		}
		for _, df := range d.Diffs {
			writeWrapped(w, fmt.Sprintf("  %s: %s | %s", df.Key, df.Values[0], df.Values[1]), "    ")
		}
	}
	if len(fr.Untested) > 0 {
		fmt.Fprintln(w, "\nNot tested, and not counted:")
		for _, h := range fr.Untested {
			writeWrapped(w, "  "+h.Name+": "+h.Reason, "    ")
		}
	}
	if len(fr.Partial) > 0 {
		fmt.Fprintln(w, "\nHosts with partial results (compared with what they finished):")
		for _, h := range fr.Partial {
			writeWrapped(w, "  "+strings.TrimSpace(fmt.Sprintf("%s: %s %s", h.Name, h.Status, h.Reason)), "    ")
		}
	}
	if len(fr.Missing) > 0 {
		fmt.Fprintln(w, "\nHosts without results:")
		for _, h := range fr.Missing {
			writeWrapped(w, "  "+strings.TrimSpace(fmt.Sprintf("%s: %s %s", h.Name, h.Status, h.Reason)), "    ")
		}
	}
	return nil
}

// acrossLine is the fleet estimate in one line.
func (fr *FleetReport) acrossLine() string {
	if fr.Fleet == nil {
		return fmt.Sprintf("Across %ss: no estimate: %s", fr.groupWord(), fr.FleetWhy)
	}
	f := fr.Fleet
	word := "no significant change"
	if f.P < fr.Alpha {
		word = fr.directionWord(map[bool]int{true: 1, false: -1}[f.Estimate > 0])
	}
	l := fmt.Sprintf("Across %ss: %s %s, %s (random effects over %s, ratio of geometric means): %s",
		fr.groupWord(), units.Percent(math.Expm1(f.Estimate)), pctRange(math.Expm1(f.Lo), math.Expm1(f.Hi)), formatPAt(f.P),
		plural.N(f.K, fr.groupWord(), fr.groupWord()+"s"), word)
	if fr.FleetWhy != "" {
		l += "; " + fr.FleetWhy
	}
	return l
}

// betweenLine says whether the change differs between the groups.
func (fr *FleetReport) betweenLine() string {
	f := fr.Fleet
	if f == nil {
		return ""
	}
	tau := units.Percent(math.Expm1(math.Sqrt(f.Tau2)))
	if f.HetP < fr.Alpha {
		return fmt.Sprintf("Between %ss: the change DIFFERS (%s, I² %.0f%%, SD of the change between %ss about %s)",
			fr.groupWord(), formatPAt(f.HetP), 100*f.I2, fr.groupWord(), strings.TrimPrefix(tau, "+"))
	}
	return fmt.Sprintf("Between %ss: no evidence that the change differs (%s, I² %.0f%%)", fr.groupWord(), formatPAt(f.HetP), 100*f.I2)
}

// directionLine counts the tested groups by the direction of their
// significant change.
func (fr *FleetReport) directionLine() string {
	n := len(fr.Rows) - len(fr.Untested)
	up, down := fr.count(1), fr.count(-1)
	none := n - up - down
	g := fr.groupWord()
	switch {
	case up == 0 && down == 0:
		return fmt.Sprintf("Direction: no significant change on any of the %s tested", plural.N(n, g, g+"s"))
	case up > 0 && down > 0:
		return fmt.Sprintf("Direction: DISAGREES: %s on %d and %s on %d of %d tested %ss, no significant change on %d",
			fr.directionWord(1), up, fr.directionWord(-1), down, n, g, none)
	}
	s, k := 1, up
	if down > 0 {
		s, k = -1, down
	}
	l := fmt.Sprintf("Direction: %s on %d of %d tested %ss, none significant the other way", fr.directionWord(s), k, n, g)
	if none > 0 {
		l += fmt.Sprintf(", no significant change on %d", none)
	}
	if !math.IsInf(fr.Lo, 0) {
		l += fmt.Sprintf(" (HL change from %s to %s)", units.Percent(fr.Lo), units.Percent(fr.Hi))
	}
	return l
}

// opposite tells whether the change of the medians and the HL change
// point opposite ways, both non-zero.
func opposite(c *analysis.Comparison) bool {
	return c.Change*c.Estimate < 0
}

func (fr *FleetReport) groupWord() string {
	if fr.By == "host" {
		return "host"
	}
	return fr.By
}

func (fr *FleetReport) count(s int) int {
	n := 0
	for _, r := range fr.Rows {
		if fr.tested(r.Key) && r.sign() == s {
			n++
		}
	}
	return n
}

func (fr *FleetReport) rowSign(key string) int {
	for _, r := range fr.Rows {
		if r.Key == key {
			return r.sign()
		}
	}
	return 0
}

// FleetJSON is the JSON form of a FleetReport; contend-plot --fleet reads
// it (internal/plot).
type FleetJSON struct {
	By       string           `json:"by"`
	Metric   string           `json:"metric"`
	Agree    bool             `json:"agree"`
	Majority string           `json:"majority"`
	Groups   []FleetGroupJSON `json:"groups"`
	Missing  []FleetHost      `json:"missing"`
	Partial  []FleetHost      `json:"partial,omitempty"`
	Untested []FleetHost      `json:"untested,omitempty"`
	// Fleet is the estimate across groups (null without one; FleetWhy
	// says why).
	Fleet    *FleetEstimateJSON  `json:"fleet"`
	FleetWhy string              `json:"fleet_why,omitempty"`
	Disagree []FleetDisagreement `json:"disagree,omitempty"`
}

// FleetEstimateJSON is the random-effects estimate across groups:
// changes as fractions (the ratio of geometric means minus 1), tau as the
// between-group SD of the change on the log scale.
type FleetEstimateJSON struct {
	Method   string  `json:"method"`
	Groups   int     `json:"groups"`
	Change   num     `json:"change"`
	ChangeLo num     `json:"change_lo"`
	ChangeHi num     `json:"change_hi"`
	P        num     `json:"p"`
	Verdict  string  `json:"verdict"`
	Tau      num     `json:"tau"`
	Q        num     `json:"q"`
	I2       num     `json:"i2"`
	HetP     num     `json:"heterogeneity_p"`
	Differs  bool    `json:"differs"`
	Alpha    float64 `json:"alpha"`
}

// FleetGroupJSON is one group's headline: changes as fractions, medians
// in base units; null where there is no value.
type FleetGroupJSON struct {
	Key       string `json:"key"`
	NA        int    `json:"n_a"`
	NB        int    `json:"n_b"`
	MedianA   num    `json:"median_a"`
	MedianB   num    `json:"median_b"`
	Change    num    `json:"change"`
	ChangeLo  num    `json:"change_lo"`
	ChangeHi  num    `json:"change_hi"`
	AdjustedP num    `json:"adjusted_p"`
	Verdict   string `json:"verdict"`
	// Tested is false for a group too small for its test (Untested).
	Tested bool `json:"tested"`
	// Opposite is true when the change of the medians and the HL change
	// point opposite ways.
	Opposite bool `json:"opposite,omitempty"`
}

// JSON returns the report's JSON form.
func (fr *FleetReport) JSON() FleetJSON {
	j := FleetJSON{By: fr.By, Metric: fr.Headline.Name, Agree: fr.Agree, Majority: fr.directionWord(fr.Majority),
		Missing: fr.Missing, Partial: fr.Partial, Disagree: fr.Disagree, Untested: fr.Untested, FleetWhy: fr.FleetWhy}
	if j.Missing == nil {
		j.Missing = []FleetHost{}
	}
	if f := fr.Fleet; f != nil {
		verdict := "no significant change"
		if f.P < fr.Alpha {
			verdict = fr.directionWord(map[bool]int{true: 1, false: -1}[f.Estimate > 0])
		}
		j.Fleet = &FleetEstimateJSON{Method: "random effects: DerSimonian-Laird tau2, modified Hartung-Knapp t interval; Welch heterogeneity test",
			Groups: f.K, Change: num(math.Expm1(f.Estimate)), ChangeLo: num(math.Expm1(f.Lo)), ChangeHi: num(math.Expm1(f.Hi)),
			P: num(f.P), Verdict: verdict, Tau: num(math.Sqrt(f.Tau2)), Q: num(f.Q), I2: num(f.I2), HetP: num(f.HetP),
			Differs: f.HetP < fr.Alpha, Alpha: fr.Alpha}
	}
	for _, r := range fr.Rows {
		// The group's numbers are those compare --format json gives its
		// headline row (compare_data.go), the p adjusted across hosts.
		d := rowData(r.Report, r.Report.Pairs[0], r.Row)
		j.Groups = append(j.Groups, FleetGroupJSON{Key: r.Key, NA: d.NA, NB: d.NB, MedianA: d.MedianA, MedianB: d.MedianB,
			Change: d.Change, ChangeLo: d.ChangeLo, ChangeHi: d.ChangeHi, AdjustedP: d.PAdjusted, Verdict: d.Verdict,
			Tested: fr.tested(r.Key), Opposite: r.Row.Cmp != nil && opposite(r.Row.Cmp)})
		if !fr.tested(r.Key) {
			g := &j.Groups[len(j.Groups)-1]
			g.AdjustedP, g.Verdict = num(math.NaN()), "not tested"
		}
	}
	return j
}

func (fr *FleetReport) writeJSON(w io.Writer) error {
	b, err := json.MarshalIndent(fr.JSON(), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// incompatible is an error of BuildFleet's input: it wraps
// comparison.ErrIncompatible.
func incompatible(format string, a ...any) error {
	return fmt.Errorf("%w: %s", comparison.ErrIncompatible, fmt.Sprintf(format, a...))
}
