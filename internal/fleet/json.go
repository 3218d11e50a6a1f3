package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"contend/internal/report"
)

// JSON is the JSON form of a Report; contend-plot --fleet reads
// it (internal/plot).
type JSON struct {
	By       string      `json:"by"`
	Metric   string      `json:"metric"`
	Agree    bool        `json:"agree"`
	Majority string      `json:"majority"`
	Groups   []GroupJSON `json:"groups"`
	Missing  []Host      `json:"missing"`
	Partial  []Host      `json:"partial,omitempty"`
	Untested []Host      `json:"untested,omitempty"`
	// Fleet is the estimate across groups (null without one; FleetWhy
	// says why).
	Fleet    *EstimateJSON  `json:"fleet"`
	FleetWhy string         `json:"fleet_why,omitempty"`
	Disagree []Disagreement `json:"disagree,omitempty"`
}

// EstimateJSON is the random-effects estimate across groups:
// changes as fractions (the ratio of geometric means minus 1), tau as the
// between-group SD of the change on the log scale.
type EstimateJSON struct {
	Method   string     `json:"method"`
	Groups   int        `json:"groups"`
	Change   report.Num `json:"change"`
	ChangeLo report.Num `json:"change_lo"`
	ChangeHi report.Num `json:"change_hi"`
	P        report.Num `json:"p"`
	Verdict  string     `json:"verdict"`
	Tau      report.Num `json:"tau"`
	Q        report.Num `json:"q"`
	I2       report.Num `json:"i2"`
	HetP     report.Num `json:"heterogeneity_p"`
	Differs  bool       `json:"differs"`
	Alpha    float64    `json:"alpha"`
}

// GroupJSON is one group's headline: changes as fractions, medians
// in base units; null where there is no value.
type GroupJSON struct {
	Key       string     `json:"key"`
	NA        int        `json:"n_a"`
	NB        int        `json:"n_b"`
	MedianA   report.Num `json:"median_a"`
	MedianB   report.Num `json:"median_b"`
	Change    report.Num `json:"change"`
	ChangeLo  report.Num `json:"change_lo"`
	ChangeHi  report.Num `json:"change_hi"`
	AdjustedP report.Num `json:"adjusted_p"`
	Verdict   string     `json:"verdict"`
	// Tested is false for a group too small for its test (Untested).
	Tested bool `json:"tested"`
	// Opposite is true when the change of the medians and the HL change
	// point opposite ways.
	Opposite bool `json:"opposite,omitempty"`
}

// JSON returns the report's JSON form.
func (fr *Report) JSON() JSON {
	j := JSON{By: fr.By, Metric: fr.Headline.Name, Agree: fr.Agree, Majority: fr.directionWord(fr.Majority),
		Missing: fr.Missing, Partial: fr.Partial, Disagree: fr.Disagree, Untested: fr.Untested, FleetWhy: fr.FleetWhy}
	if j.Missing == nil {
		j.Missing = []Host{}
	}
	if f := fr.Fleet; f != nil {
		verdict := "no significant change"
		if f.P < fr.Alpha {
			verdict = fr.directionWord(map[bool]int{true: 1, false: -1}[f.Estimate > 0])
		}
		j.Fleet = &EstimateJSON{Method: "random effects: DerSimonian-Laird tau2, modified Hartung-Knapp t interval; Welch heterogeneity test",
			Groups: f.K, Change: report.Num(math.Expm1(f.Estimate)), ChangeLo: report.Num(math.Expm1(f.Lo)), ChangeHi: report.Num(math.Expm1(f.Hi)),
			P: report.Num(f.P), Verdict: verdict, Tau: report.Num(math.Sqrt(f.Tau2)), Q: report.Num(f.Q), I2: report.Num(f.I2), HetP: report.Num(f.HetP),
			Differs: f.HetP < fr.Alpha, Alpha: fr.Alpha}
	}
	for _, r := range fr.Rows {
		// The group's numbers are those compare --format json gives its
		// headline row (compare_data.go), the p adjusted across hosts.
		d := report.RowJSON(r.Report, r.Report.Pairs[0], r.Row)
		j.Groups = append(j.Groups, GroupJSON{Key: r.Key, NA: d.NA, NB: d.NB, MedianA: d.MedianA, MedianB: d.MedianB,
			Change: d.Change, ChangeLo: d.ChangeLo, ChangeHi: d.ChangeHi, AdjustedP: d.PAdjusted, Verdict: d.Verdict,
			Tested: fr.tested(r.Key), Opposite: r.Row.Cmp != nil && opposite(r.Row.Cmp)})
		if !fr.tested(r.Key) {
			g := &j.Groups[len(j.Groups)-1]
			g.AdjustedP, g.Verdict = report.Num(math.NaN()), "not tested"
		}
	}
	return j
}

func (fr *Report) writeJSON(w io.Writer) error {
	b, err := json.MarshalIndent(fr.JSON(), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
