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
	"contend/internal/env"
	"contend/internal/plural"
	"contend/internal/results"
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
	A, B Side
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
	Report *CompareReport
	Row    MetricRow
	Env    env.Fingerprint // of the group's first file
}

// A FleetReport compares B with A on every host of a fleet.
type FleetReport struct {
	By       string
	Headline results.Metric
	Rows     []FleetRow
	// Missing are the expected hosts without results, with the reason
	// the status file gives.
	Missing []FleetHost
	// Partial are the hosts compared whose status is not ok (a run
	// killed or failed midway): their files hold what was done.
	Partial []FleetHost
	// Agree is true when every host's estimate moves the same way;
	// Majority is that way (+1 larger, -1 smaller, 0 none); Disagree
	// lists the other hosts with the environment keys in which each
	// differs from the first host of the majority.
	Agree    bool
	Majority int
	Disagree []FleetDisagreement
	Lo, Hi   float64 // smallest and largest estimate over the hosts
}

// A FleetDisagreement is a host whose change goes against the majority.
type FleetDisagreement struct {
	Key       string `json:"key"`
	Reference string `json:"reference"`
	Diffs     []Diff `json:"diffs"` // Values: [this host, reference host]
}

// BuildFleet compares B with A within every group, Holm-adjusts the
// headline p-values over the groups, and checks whether the direction
// agrees across them. expected (may be nil) lists the hosts the fleet
// ran on; those without a group are Missing.
func BuildFleet(by string, groups []FleetGroup, expected []FleetHost, opt CompareOptions) (*FleetReport, error) {
	if len(groups) == 0 {
		return nil, incompatible("no host has results on both sides")
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Key < groups[j].Key })
	fr := &FleetReport{By: by, Lo: math.Inf(1), Hi: math.Inf(-1)}
	var head []*analysis.Comparison
	for _, g := range groups {
		g.A.Name, g.B.Name = g.Key+" A", g.Key+" B"
		r, err := BuildComparison([]Side{g.A, g.B}, opt)
		if errors.Is(err, ErrIncompatible) {
			// A host whose run stopped before side B ran: named, not fatal.
			fr.Missing = append(fr.Missing, FleetHost{Name: g.Key, Status: "not-compared", Reason: err.Error()})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.Key, err)
		}
		if fr.Headline.Name == "" {
			fr.Headline = r.metric(r.Headline)
		} else if r.Headline != fr.Headline.Name {
			return nil, incompatible("%s has headline metric %s, other hosts %s: give --metric", g.Key, r.Headline, fr.Headline.Name)
		}
		row := r.Pairs[0].Rows[0]
		for _, x := range r.Pairs[0].Rows {
			if x.Metric.Name == r.Headline {
				row = x
			}
		}
		if row.Cmp != nil {
			head = append(head, row.Cmp)
			fr.Lo = math.Min(fr.Lo, row.Cmp.Estimate)
			fr.Hi = math.Max(fr.Hi, row.Cmp.Estimate)
		}
		fr.Rows = append(fr.Rows, FleetRow{Key: g.Key, Report: r, Row: row, Env: partEnv(g.A.Parts[0])})
	}
	if len(fr.Rows) == 0 {
		return nil, incompatible("no host has results to compare: %s", fr.Missing[0].Reason)
	}
	if err := analysis.AdjustHolm(head); err != nil {
		return nil, err
	}
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

// sign is the direction of a row's estimate: +1, -1, or 0 (identical or
// no estimate).
func (r FleetRow) sign() int {
	if r.Row.Cmp == nil || math.IsNaN(r.Row.Cmp.Estimate) || r.Row.Cmp.Estimate == 0 {
		return 0
	}
	if r.Row.Cmp.Estimate > 0 {
		return 1
	}
	return -1
}

func (fr *FleetReport) direction() {
	count := map[int]int{}
	for _, r := range fr.Rows {
		count[r.sign()]++
	}
	fr.Majority = 0
	for _, s := range []int{1, -1, 0} {
		if count[s] > count[fr.Majority] {
			fr.Majority = s
		}
	}
	fr.Agree = count[fr.Majority] == len(fr.Rows)
	var ref *FleetRow
	for i := range fr.Rows {
		if fr.Rows[i].sign() == fr.Majority {
			ref = &fr.Rows[i]
			break
		}
	}
	for _, r := range fr.Rows {
		if r.sign() == fr.Majority {
			continue
		}
		d := FleetDisagreement{Key: r.Key, Reference: ref.Key}
		for _, k := range env.Diff(r.Env, ref.Env) {
			if k == "hostname" || k == "kernel.version" && r.Env["kernel.release"] != ref.Env["kernel.release"] {
				continue
			}
			d.Diffs = append(d.Diffs, Diff{Key: k, Values: []string{r.Env[k], ref.Env[k]}})
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
	case timeLike(m):
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
	if fr.Agree {
		fmt.Fprintf(w, "Direction: agrees on every %s: %s", fr.groupWord(), fr.directionWord(fr.Majority))
	} else {
		fmt.Fprintf(w, "Direction: DISAGREES: %s on %d of %d", fr.directionWord(fr.Majority), fr.count(fr.Majority), len(fr.Rows))
	}
	if !math.IsInf(fr.Lo, 0) {
		fmt.Fprintf(w, " (HL change from %s to %s; significant on %d of %d)", Percent(fr.Lo), Percent(fr.Hi), fr.significant(), len(fr.Rows))
	}
	fmt.Fprintln(w)
	if len(fr.Missing) > 0 {
		var ns []string
		for _, h := range fr.Missing {
			ns = append(ns, h.Name)
		}
		fmt.Fprintf(w, "Missing: %s\n", strings.Join(ns, ", "))
	}
	fmt.Fprintln(w)
	t := &Table{}
	t.AlignLeft(0, 6)
	t.Row(fr.groupWord(), "n A/B", "median A", "median B", "HL change [95% CI]", "adj p", "verdict")
	for _, r := range fr.Rows {
		nA, nB := len(r.Report.Sides[0].values(m.Name)), len(r.Report.Sides[1].values(m.Name))
		if r.Row.Identical || r.Row.Cmp == nil {
			t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB), "", "", "", "", "identical")
			continue
		}
		c := r.Row.Cmp
		sc := ScaleFor(m.Unit, math.Max(math.Abs(c.SummaryA.Median), math.Abs(c.SummaryB.Median)))
		ci, rng := ChangeCells(c, m.Unit)
		if rng != "" {
			ci += " " + rng
		}
		t.Row(r.Key, fmt.Sprintf("%d/%d", nA, nB),
			sc.Format(c.SummaryA.Median), sc.Format(c.SummaryB.Median), ci, FormatP(c.AdjustedP), VerdictWord(r.Row))
	}
	t.Write(w)
	fmt.Fprintf(w, "\nadj p: Holm over the %s. Each group's full report: 'contend compare' on its files.\n", plural.N(len(fr.Rows), "group", "groups"))
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

// significant counts the groups whose headline verdict is a significant
// change beyond the noise band.
func (fr *FleetReport) significant() int {
	n := 0
	for _, r := range fr.Rows {
		if r.Row.Cmp != nil {
			switch r.Row.Cmp.Verdict {
			case analysis.VerdictBetter, analysis.VerdictWorse, analysis.VerdictIncrease, analysis.VerdictDecrease:
				n++
			}
		}
	}
	return n
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
		if r.sign() == s {
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
	By       string              `json:"by"`
	Metric   string              `json:"metric"`
	Agree    bool                `json:"agree"`
	Majority string              `json:"majority"`
	Groups   []FleetGroupJSON    `json:"groups"`
	Missing  []FleetHost         `json:"missing"`
	Partial  []FleetHost         `json:"partial,omitempty"`
	Disagree []FleetDisagreement `json:"disagree,omitempty"`
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
}

// JSON returns the report's JSON form.
func (fr *FleetReport) JSON() FleetJSON {
	j := FleetJSON{By: fr.By, Metric: fr.Headline.Name, Agree: fr.Agree, Majority: fr.directionWord(fr.Majority),
		Missing: fr.Missing, Partial: fr.Partial, Disagree: fr.Disagree}
	if j.Missing == nil {
		j.Missing = []FleetHost{}
	}
	for _, r := range fr.Rows {
		// The group's numbers are those compare --format json gives its
		// headline row (compare_data.go), the p adjusted across hosts.
		d := r.Report.rowData(r.Report.Pairs[0], r.Row)
		j.Groups = append(j.Groups, FleetGroupJSON{Key: r.Key, NA: d.NA, NB: d.NB, MedianA: d.MedianA, MedianB: d.MedianB,
			Change: d.Change, ChangeLo: d.ChangeLo, ChangeHi: d.ChangeHi, AdjustedP: d.PAdjusted, Verdict: d.Verdict})
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
