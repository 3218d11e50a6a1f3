package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/results"
	"contend/internal/units"
)

// Num is a float64 that encodes NaN and infinities as JSON null.
type Num float64

func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

type jsonReport struct {
	Workload  string            `json:"workload"`
	Test      string            `json:"test"`
	Alpha     float64           `json:"alpha"`
	Threshold float64           `json:"threshold"`
	Conf      float64           `json:"confidence"`
	Headline  string            `json:"headline_metric"`
	Families  []string          `json:"holm_families"`
	Sides     []jsonSide        `json:"sides"`
	Pairs     []jsonPair        `json:"pairs"`
	Params    []comparison.Diff `json:"param_diffs"`
	Env       []comparison.Diff `json:"env_diffs"`
	Built     []string          `json:"built_differently,omitempty"`
	Causes    []string          `json:"env_causes,omitempty"`
	Outliers  []jsonOut         `json:"outliers"`
	Within    []jsonWithin      `json:"within_side_checks"`
	Boots     []jsonBoots       `json:"boot_level,omitempty"` // boots.go
	// UnitOfAnalysis is "boot" when the boot is the unit of the
	// verdicts (bootunit.go), PerBoot then the per-boot table.
	UnitOfAnalysis string        `json:"unit_of_analysis,omitempty"`
	PerBoot        []jsonPerBoot `json:"per_boot,omitempty"`
}

type jsonSide struct {
	Label  string         `json:"label"`
	Name   string         `json:"name"`
	Files  []string       `json:"files"`
	Counts map[string]int `json:"counts"`
}

type jsonPair struct {
	A        string `json:"a"`
	B        string `json:"b"`
	Headline string `json:"headline"`
	// Replication is the unit of replication (comparison.Replication:
	// one_boot, two_boots, uneven_boots, boots; absent when the
	// repetitions record no boot), ReplicationNote what it means for the
	// p-value, as the text says it under the headline.
	Replication     comparison.Replication `json:"replication,omitempty"`
	ReplicationNote string                 `json:"replication_note,omitempty"`
	// Unstable is the headline's InstabilityNote, "" (left out) when it
	// has none.
	Unstable string       `json:"unstable,omitempty"`
	Metrics  []MetricJSON `json:"metrics"`
	// OnlyA and OnlyB are the evidence metrics only that side has
	// values of, not compared (evidence.go).
	OnlyA []string `json:"evidence_only_a,omitempty"`
	OnlyB []string `json:"evidence_only_b,omitempty"`
}

// MetricJSON is one metric of one pair in compare --format json: medians
// and changes in base units and fractions, null where there is no value.
type MetricJSON struct {
	Metric      string   `json:"metric"`
	Unit        string   `json:"unit"`
	Better      string   `json:"better"`
	NA          int      `json:"n_a"`
	MedianA     Num      `json:"median_a"`
	MedianALo   Num      `json:"median_a_lo"`
	MedianAHi   Num      `json:"median_a_hi"`
	NB          int      `json:"n_b"`
	MedianB     Num      `json:"median_b"`
	MedianBLo   Num      `json:"median_b_lo"`
	MedianBHi   Num      `json:"median_b_hi"`
	Change      Num      `json:"change"`
	ChangeLo    Num      `json:"change_lo"`
	ChangeHi    Num      `json:"change_hi"`
	Estimator   string   `json:"change_estimator"`
	Shift       *Num     `json:"shift,omitempty"`
	ShiftLo     *Num     `json:"shift_lo,omitempty"`
	ShiftHi     *Num     `json:"shift_hi,omitempty"`
	MedianChg   Num      `json:"median_change"`
	P           Num      `json:"p"`
	PAdjusted   Num      `json:"p_adjusted"`
	FamilySize  int      `json:"holm_family_size"`
	Method      string   `json:"method"`
	CliffsDelta Num      `json:"cliffs_delta"`
	MDE         Num      `json:"mde"`
	MDEUp       Num      `json:"mde_up"`
	MDEDown     Num      `json:"mde_down"`
	Verdict     string   `json:"verdict"`
	Warnings    []string `json:"warnings"`
	// In a report with the boot as the unit (bootunit.go): change, p,
	// MDE and verdict are the boot level's, the pooled runs' are in
	// Pooled.
	UnitOfAnalysis string          `json:"unit_of_analysis,omitempty"`
	Boot           *jsonBootMetric `json:"boot,omitempty"`
	Pooled         *jsonPooled     `json:"pooled,omitempty"`
}

type jsonOut struct {
	Side   string  `json:"side"`
	Metric string  `json:"metric"`
	File   string  `json:"file"`
	Rep    int     `json:"rep_index"`
	Value  float64 `json:"value"`
	Z      Num     `json:"modified_z"`
}

type jsonWithin struct {
	Side      string `json:"side"`
	Metric    string `json:"metric"`
	FileA     string `json:"file_a"`
	FileB     string `json:"file_b"`
	MedianA   Num    `json:"median_a"`
	MedianB   Num    `json:"median_b"`
	P         Num    `json:"p"`
	PAdjusted Num    `json:"p_adjusted"`
	CanTest   bool   `json:"can_test"`
	Separated bool   `json:"separated"`
	Differ    bool   `json:"differ"`
}

// RowJSON is one metric of one pair with every number, NaN when absent.
func RowJSON(r *comparison.Comparison, p comparison.PairReport, row comparison.MetricRow) MetricJSON {
	nan := Num(math.NaN())
	j := MetricJSON{
		Metric: row.Metric.Name, Unit: row.Metric.Unit, Better: row.Metric.Better,
		NA: row.NA, NB: row.NB,
		MedianA: Num(row.MedianA), MedianB: Num(row.MedianB),
		MedianALo: nan, MedianAHi: nan, MedianBLo: nan, MedianBHi: nan,
		Change: nan, ChangeLo: nan, ChangeHi: nan, MedianChg: nan, P: nan, PAdjusted: nan,
		CliffsDelta: nan, MDE: nan, MDEUp: nan, MDEDown: nan, Verdict: VerdictWord(row), Warnings: []string{},
	}
	if row.Identical {
		j.Change, j.MedianChg = 0, 0
		return j
	}
	c := row.Cmp
	if c.SummaryA.HasCI {
		j.MedianALo, j.MedianAHi = Num(c.SummaryA.MedianLo), Num(c.SummaryA.MedianHi)
	}
	if c.SummaryB.HasCI {
		j.MedianBLo, j.MedianBHi = Num(c.SummaryB.MedianLo), Num(c.SummaryB.MedianHi)
	}
	// change and its interval are one estimator (Hodges-Lehmann);
	// median_change, the change of the medians, is another.
	j.Change, j.ChangeLo, j.ChangeHi = Num(c.Estimate), Num(c.ChangeLo), Num(c.ChangeHi)
	j.Estimator, j.MedianChg = c.ChangeMethod.String(), Num(c.Change)
	if c.ChangeMethod != analysis.RelLogShift {
		// The shift B-A in the metric's unit: for values >= 0 with
		// zeros the only interval (change_lo and change_hi are null).
		sh, lo, hi := Num(c.Shift), Num(c.ShiftLo), Num(c.ShiftHi)
		j.Shift, j.ShiftLo, j.ShiftHi = &sh, &lo, &hi
	}
	j.P, j.PAdjusted, j.FamilySize = Num(c.P), Num(c.AdjustedP), c.FamilySize
	j.Method = c.Test.String() + ", " + c.Method
	j.CliffsDelta, j.MDE = Num(c.CliffsDelta), Num(c.MDE)
	j.MDEUp, j.MDEDown = Num(c.MDEUp), Num(c.MDEDown)
	j.Warnings = append(j.Warnings, c.Warnings...)
	return j
}

func writeJSON(r *comparison.Comparison, w io.Writer) error {
	out := jsonReport{
		Workload: r.Workload, Test: r.Options.Test.String(), Alpha: r.Options.Alpha,
		Threshold: r.Options.Threshold, Conf: r.Options.Level(), Headline: r.Headline,
		Families: r.Families, Params: r.ParamDiffs, Env: r.EnvDiffs, Built: r.BuildDiffs, Causes: r.Causes,
		Outliers: []jsonOut{}, Within: []jsonWithin{},
	}
	if out.Params == nil {
		out.Params = []comparison.Diff{}
	}
	if out.Env == nil {
		out.Env = []comparison.Diff{}
	}
	for _, s := range r.Sides {
		out.Sides = append(out.Sides, jsonSide{Label: s.Label, Name: s.Name, Files: s.Parts, Counts: s.Counts})
	}
	boot := r.BootUnit()
	if boot {
		// The test of the verdicts; the pooled runs' is in each
		// metric's "pooled".
		out.UnitOfAnalysis, out.PerBoot, out.Test = "boot", perBootJSON(r), "Student t on per-boot means"
	}
	for _, p := range r.Pairs {
		jp := jsonPair{A: r.Sides[p.A].Label, B: r.Sides[p.B].Label, Headline: HeadlineFor(r, p), Unstable: InstabilityNote(r, p),
			Replication: p.Replication, ReplicationNote: p.ReplicationNote}
		if boot {
			jp.Headline = bootHeadline(r, p)
		}
		for _, row := range p.Rows {
			j := RowJSON(r, p, row)
			if boot {
				j = bootMetricData(r, p, j)
			}
			jp.Metrics = append(jp.Metrics, j)
		}
		jp.OnlyA, jp.OnlyB = pairOneSided(r, p)
		out.Pairs = append(out.Pairs, jp)
	}
	for _, o := range r.Outliers {
		out.Outliers = append(out.Outliers, jsonOut{r.Sides[o.Side].Label, o.Metric, o.Part, o.Rep, o.Value, Num(o.Z)})
	}
	for _, c := range r.Within {
		out.Within = append(out.Within, jsonWithin{r.Sides[c.Side].Label, c.Metric, c.PartA, c.PartB,
			Num(c.MedianA), Num(c.MedianB), Num(c.P), Num(c.AdjustedP), c.CanTest, c.Separated, c.Differ})
	}
	out.Boots = bootsJSON(r)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// csvNum renders x for CSV: shortest exact form, empty for NaN.
func csvNum(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// writeCSV writes one row per pair and metric, values in base units,
// fractions for changes.
func writeCSV(r *comparison.Comparison, w io.Writer) error {
	cw := csv.NewWriter(w)
	boot := r.BootUnit()
	head := []string{"a", "b", "metric", "unit", "better", "n_a", "median_a", "median_a_lo", "median_a_hi",
		"n_b", "median_b", "median_b_lo", "median_b_hi", "change", "change_lo", "change_hi",
		"p", "p_adjusted", "holm_family_size", "method", "mde", "verdict", "change_estimator", "median_change", "mde_up", "mde_down", "unstable"}
	if boot {
		// The boot is the unit: change, p, MDE and verdict are the boot
		// level's; the pooled runs' follow (bootunit.go).
		head = append(head, bootCSVHeader...)
	}
	// The unit of replication of the pair (comparison.Replication).
	head = append(head, "replication")
	cw.Write(head)
	for _, p := range r.Pairs {
		note := InstabilityNote(r, p) // of the headline metric's row
		for _, row := range p.Rows {
			j := RowJSON(r, p, row)
			var extra []string
			if boot {
				j = bootMetricData(r, p, j)
				extra = bootCSVCells(j)
			}
			extra = append(extra, string(p.Replication))
			cw.Write(append([]string{r.Sides[p.A].Name, r.Sides[p.B].Name, j.Metric, j.Unit, j.Better,
				strconv.Itoa(j.NA), csvNum(j.MedianA), csvNum(j.MedianALo), csvNum(j.MedianAHi),
				strconv.Itoa(j.NB), csvNum(j.MedianB), csvNum(j.MedianBLo), csvNum(j.MedianBHi),
				csvNum(j.Change), csvNum(j.ChangeLo), csvNum(j.ChangeHi),
				csvNum(j.P), csvNum(j.PAdjusted), strconv.Itoa(j.FamilySize), j.Method, csvNum(j.MDE), j.Verdict,
				j.Estimator, csvNum(j.MedianChg), csvNum(j.MDEUp), csvNum(j.MDEDown), headlineOnly(row, r.Headline, note)}, extra...))
		}
	}
	cw.Flush()
	return cw.Error()
}

// headlineOnly is note on the headline metric's row, "" on the others.
func headlineOnly(row comparison.MetricRow, headline, note string) string {
	if row.Metric.Name != headline {
		return ""
	}
	return note
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func writeMarkdown(r *comparison.Comparison, w io.Writer) error {
	fmt.Fprintf(w, "### %s: %s\n\n", r.Workload, comparedWith(r))
	fmt.Fprintln(w, "| side | files | repetitions |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, s := range r.Sides {
		fmt.Fprintf(w, "| %s | %s | %s |\n", s.Label, mdCell(strings.Join(s.Parts, ", ")), countsText(s.Counts))
	}
	fmt.Fprintln(w)
	for _, c := range r.Causes {
		fmt.Fprintf(w, "- **warning:** %s\n", mdCell(c))
	}
	if r.BootUnit() {
		writeBootMarkdown(r, w)
	} else {
		writeMarkdownTables(r, w)
	}
	var notes []string
	for _, p := range r.Pairs {
		if !r.BootUnit() {
			var buf strings.Builder
			writePairWarnings(r, &buf, p)
			notes = append(notes, unwrap(buf.String())...)
		}
		notes = append(notes, oneSidedLines(r, p)...)
	}
	if !r.BootUnit() {
		var buf strings.Builder
		writeWithin(r, &buf)
		notes = append(notes, unwrap(buf.String())...)
	}
	for _, o := range r.Outliers {
		notes = append(notes, fmt.Sprintf("outlier: %s %s %s: repetition %d of %s, modified z = %.1f (kept)",
			r.Sides[o.Side].Label, o.Metric, units.Human(r.Metric(o.Metric).Unit, o.Value), o.Rep+1, o.Part, o.Z))
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
	for _, sec := range []struct {
		title string
		diffs []comparison.Diff
	}{{"Parameters that differ", r.ParamDiffs}, {"Environment differences", r.EnvDiffs}} {
		if len(sec.diffs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n**%s**\n\n| key |", sec.title)
		for _, s := range r.Sides {
			fmt.Fprintf(w, " %s |", s.Label)
		}
		fmt.Fprint(w, "\n|---|")
		for range r.Sides {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w)
		for _, d := range sec.diffs {
			fmt.Fprintf(w, "| %s |", d.Key)
			for _, v := range d.Values {
				fmt.Fprintf(w, " %s |", mdCell(v))
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// writeMarkdownTables writes the headlines and tables of the runs of
// every pair, with the method notes.
func writeMarkdownTables(r *comparison.Comparison, w io.Writer) {
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "- **%s**\n", mdCell(HeadlineFor(r, p)))
		if p.ReplicationNote != "" {
			fmt.Fprintf(w, "  - %s\n", mdCell(p.ReplicationNote))
		}
	}
	for _, p := range r.Pairs {
		a, b := r.Sides[p.A], r.Sides[p.B]
		fmt.Fprintf(w, "\n| metric | %s | %s | HL change | p | verdict |\n", a.Label, b.Label)
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|---|")
		evHead, profHead := false, false
		for _, row := range p.Rows {
			m := row.Metric
			if evidence.IsEvidence(m.Name) && !comparison.IsProfile(m.Name) && !evHead {
				evHead = true
				fmt.Fprintf(w, "| **%s** | | | | | |\n", evidence.Title)
			}
			if comparison.IsProfile(m.Name) && !profHead {
				profHead = true
				fmt.Fprintf(w, "| **%s** | | | | | |\n", ProfileTitle)
			}
			if evidence.IsEvidence(m.Name) && row.Identical {
				continue // all values the same (mostly zero): no evidence
			}
			ma, mb := row.MedianA, row.MedianB
			sc := rowScale(m.Unit, ma, mb)
			if row.Identical {
				fmt.Fprintf(w, "| %s | %s | %s | 0 | - | identical |\n", m.Name, sc.Format(ma), sc.Format(mb))
				continue
			}
			c := row.Cmp
			ci := func(s analysis.Summary) string {
				if !s.HasCI {
					return ""
				}
				return " " + numRange(sc, s.MedianLo, s.MedianHi)
			}
			chg, rng := ChangeCells(c, m.Unit)
			if rng != "" {
				chg += " " + rng
			}
			fmt.Fprintf(w, "| %s | %s%s | %s%s | %s | %s | %s |\n", m.Name, sc.Format(ma), ci(c.SummaryA),
				sc.Format(mb), ci(c.SummaryB), chg, FormatP(c.AdjustedP), VerdictWord(row))
		}
	}
	fmt.Fprintf(w, "\n%s %s\n", methodNote(r), estimatorNote(r))
}

// unwrap joins the wrapped lines of text written by textfmt.WriteWrapped back
// into one line per item (continuation lines start with spaces).
func unwrap(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, " ") && len(out) > 0:
			out[len(out)-1] += " " + strings.TrimSpace(l)
		default:
			out = append(out, l)
		}
	}
	return out
}

// BenchName is the Go benchmark name of config c of f:
// "BenchmarkFaultme/threads=400/mem=10GiB/stride=4KiB/thp=leave".
func BenchName(f *results.File, c int) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	up := true
	for _, r := range f.Workload {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	for _, p := range f.Configs[c].Params {
		d := p.Shown()
		fmt.Fprintf(&b, "/%s=%s", benchToken(p.Name), benchToken(d))
	}
	return b.String()
}

// benchToken replaces what the Go benchmark format does not allow in a
// name (spaces, slashes) with underscores.
func benchToken(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}

// BenchUnit is the unit metric m gets in the Go benchmark format: "ns/op"
// for the primary duration (benchstat shows it as sec/op), NAME-ns/op for
// other durations (NAME-sec/op), NAME-B/op for bytes (binary prefixes),
// NAME/op for counts and ratios, NAME-UNIT for others such as ops/s.
// benchstat scales ns and B itself.
func BenchUnit(m results.Metric, primary string) string {
	name := benchToken(m.Name)
	switch m.Unit {
	case "ns":
		if m.Name == primary {
			return "ns/op"
		}
		return name + "-ns/op"
	case "bytes":
		return name + "-B/op"
	case "count", "ratio", "":
		return name + "/op"
	}
	return name + "-" + strings.Join(strings.Fields(m.Unit), "_")
}

// WriteBench writes the repetitions of configs of f in the Go benchmark
// format: no configuration lines (the caller writes them), one line per
// successful measured repetition, each metric of metrics as a value with
// its unit (BenchUnit).
func WriteBench(w io.Writer, f *results.File, configs []int, metrics []results.Metric, primary string) {
	sel := map[int]bool{}
	for _, c := range configs {
		sel[c] = true
	}
	cols := f.Columns()
	for r := range cols.Len() {
		if cols.Warmup(r) || cols.Status(r) != results.StatusOK || !sel[cols.Config(r)] {
			continue
		}
		var b strings.Builder
		b.WriteString(BenchName(f, cols.Config(r)))
		b.WriteString(" 1")
		n := 0
		for _, m := range metrics {
			v, ok := cols.Lookup(r, m.Name)
			if !ok {
				continue
			}
			n++
			fmt.Fprintf(&b, " %s %s", strconv.FormatFloat(v, 'f', -1, 64), BenchUnit(m, primary))
		}
		if n > 0 {
			fmt.Fprintln(w, b.String())
		}
	}
}

// WriteBenchUnits writes the "Unit UNIT better=lower|higher" lines of
// the metrics with a direction, so that benchstat knows them.
func WriteBenchUnits(w io.Writer, metrics []results.Metric, primary string) {
	for _, m := range metrics {
		if m.Better == "lower" || m.Better == "higher" {
			fmt.Fprintf(w, "Unit %s better=%s\n", BenchUnit(m, primary), m.Better)
		}
	}
}

// writeBench writes every side's repetitions in the Go benchmark format.
// Each side starts with the configuration line "side: NAME", so that
// `benchstat -col side FILE` compares the sides. No other configuration
// line differs between the sides: benchstat splits its tables by every
// configuration key that is not a column, so a per-side kernel line would
// keep the sides apart.
func writeBench(r *comparison.Comparison, w io.Writer) error {
	fmt.Fprintln(w, "goos: linux")
	fmt.Fprintf(w, "pkg: contend/%s\n", r.Workload)
	WriteBenchUnits(w, r.Metrics, r.Headline)
	for si, s := range r.Sides {
		fmt.Fprintf(w, "side: %s\n", strings.Join(strings.Fields(s.Name), " "))
		for _, p := range r.SideParts(si) {
			WriteBench(w, p.File, p.Configs, r.Metrics, r.Headline)
		}
	}
	return nil
}
