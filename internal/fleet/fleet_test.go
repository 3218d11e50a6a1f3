package fleet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/units"
)

// hostAB is an ab file of one host: side b is factor times side a.
func hostAB(host, release string, factor float64) *results.File {
	a := []float64{10e6, 10.1e6, 9.9e6, 10.05e6, 9.95e6, 10.02e6}
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = x * factor * (1 + 0.001*float64(i%3))
	}
	f := file("faultme", twoMetrics[:1], []string{"a", "b"}, map[string][][]float64{"time": {a, b}})
	f.Env = map[string]string{"hostname": host, "kernel.release": release, "cpu.online": "2"}
	return f
}

func abGroup(key string, f *results.File) Group {
	return Group{Key: key, A: comparison.FileSide(key+":a", f, 0), B: comparison.FileSide(key+":b", f, 1)}
}

func TestFleetDirectionAndMissingHosts(t *testing.T) {
	groups := []Group{
		abGroup("h2", hostAB("vm", "6.1.0", 0.8)),
		abGroup("h1", hostAB("vm", "6.1.0", 0.7)),
		abGroup("h3", hostAB("vm", "6.9.0-rt", 1.2)),
	}
	expected := []Host{{Name: "h1", Status: "ok"}, {Name: "h2", Status: "ok"}, {Name: "h3", Status: "failed", Reason: "run: killed"},
		{Name: "h4", Status: "refused", Reason: "2 CPUs online, contend_min_cpus is 64"}, {Name: "h5", Status: "unreachable"}}
	fr, err := Build("host", groups, expected, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Rows) != 3 || fr.Rows[0].Key != "h1" || fr.Rows[2].Key != "h3" {
		t.Fatalf("rows not one per host in name order: %+v", fr.Rows)
	}
	// h1: -30%, h2: -20%, h3: +20%, each with an interval around it.
	for i, want := range []float64{-0.3, -0.2, 0.2} {
		c := fr.Rows[i].Row.Cmp
		if c == nil || math.Abs(c.Estimate-want) > 0.01 || !(c.ChangeLo <= c.Estimate && c.Estimate <= c.ChangeHi) {
			t.Errorf("%s: estimate %v [%v, %v], want about %v inside its interval", fr.Rows[i].Key, c.Estimate, c.ChangeLo, c.ChangeHi, want)
		}
		if c.FamilySize != 3 {
			t.Errorf("%s: Holm family of %d, want the 3 hosts", fr.Rows[i].Key, c.FamilySize)
		}
	}
	if fr.Agree || fr.Majority != -1 || len(fr.Disagree) != 1 || fr.Disagree[0].Key != "h3" || fr.Disagree[0].Reference != "h1" {
		t.Fatalf("direction: agree=%v majority=%d disagree=%+v; want h3 against the faster majority", fr.Agree, fr.Majority, fr.Disagree)
	}
	if d := fr.Disagree[0].Diffs; len(d) != 1 || d[0].Key != "kernel.release" || d[0].Values[0] != "6.9.0-rt" {
		t.Errorf("h3's environment differences: %+v, want kernel.release only (not hostname)", d)
	}
	if len(fr.Missing) != 2 || fr.Missing[0].Name != "h4" || fr.Missing[1].Name != "h5" {
		t.Errorf("missing: %+v, want h4 and h5", fr.Missing)
	}
	if len(fr.Partial) != 1 || fr.Partial[0].Name != "h3" {
		t.Errorf("partial: %+v, want h3", fr.Partial)
	}
	var buf bytes.Buffer
	if err := fr.Write(&buf, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Direction: DISAGREES: slower on 1 and faster on 2 of 3 tested hosts", "Missing: h4, h5", "h3 goes the other way (slower)",
		"kernel.release: 6.9.0-rt | 6.1.0", "h4: refused 2 CPUs online, contend_min_cpus is 64", "h1      6/6  10.01 ms  7.014 ms  -29.9% [-30.6%, -29.3%]  0.0065  faster"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := fr.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	var j JSON
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil {
		t.Fatalf("json: %v\n%s", err, buf.String())
	}
	if len(j.Groups) != 3 || j.Agree || j.Majority != "faster" || len(j.Missing) != 2 || j.Groups[2].NA != 6 {
		t.Errorf("json: %+v", j)
	}

	// All three faster: the direction agrees.
	groups[2] = abGroup("h3", hostAB("vm", "6.9.0-rt", 0.9))
	fr, err = Build("host", groups, nil, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	fr.Write(&buf, "text")
	if !fr.Agree || len(fr.Disagree) != 0 || !strings.Contains(buf.String(), "Direction: faster on 3 of 3 tested hosts, none significant the other way") {
		t.Errorf("agreeing fleet: agree=%v %+v\n%s", fr.Agree, fr.Disagree, buf.String())
	}
}

func TestFleetKey(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "h7", "sweeps")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "h7", HostMarker), []byte("h7\n"), 0o644)
	f := hostAB("realname", "6.1.0", 1)
	for _, c := range []struct{ path, by, want, err string }{
		{filepath.Join(sub, "ab.json"), "host", "h7", ""},
		{filepath.Join(dir, "ab.json"), "host", "realname", ""},
		{filepath.Join(dir, "ab.json"), "env.kernel.release", "6.1.0", ""},
		{filepath.Join(dir, "ab.json"), "env.nosuch", "", `records no environment key "nosuch"`},
		{filepath.Join(dir, "ab.json"), "hostname", "", "--by: \"hostname\" is not accepted"},
	} {
		got, err := Key(c.path, f, c.by)
		if got != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("Key(%s, %s) = %q, %v; want %q, %q", c.path, c.by, got, err, c.want, c.err)
		}
	}
}

func TestReadFleetStatus(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fleet-status.txt")
	os.WriteFile(p, []byte("# comment\nh1 ok \nh2 refused 2 CPUs online\n\n"), 0o644)
	hs, err := ReadStatus(p)
	if err != nil || len(hs) != 2 || hs[1] != (Host{Name: "h2", Status: "refused", Reason: "2 CPUs online"}) || hs[0].Reason != "" {
		t.Fatalf("got %+v, %v", hs, err)
	}
	os.WriteFile(p, []byte("lonely\n"), 0o644)
	if _, err := ReadStatus(p); err == nil || !strings.Contains(err.Error(), ":1: want 'HOST STATUS [REASON]'") {
		t.Errorf("bad line: %v", err)
	}
}

// TestFleetGroupNotCompared: a host whose run was killed before side B ran
// is listed with the reason, and the other hosts are still compared.
func TestFleetGroupNotCompared(t *testing.T) {
	killed := hostAB("vm", "6.1.0", 0.8)
	var reps []results.Rep
	for _, r := range killed.Reps {
		if r.Config == 0 {
			reps = append(reps, r)
		}
	}
	killed.Reps = reps
	groups := []Group{abGroup("h1", hostAB("vm", "6.1.0", 0.8)), abGroup("killed", killed)}
	expected := []Host{{Name: "h1", Status: "ok"}, {Name: "killed", Status: "failed", Reason: "run: killed after contend_run_timeout=1 s"}}
	fr, err := Build("host", groups, expected, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Rows) != 1 || len(fr.Missing) != 1 || fr.Missing[0].Name != "killed" || fr.Missing[0].Status != "not-compared" ||
		!strings.Contains(fr.Missing[0].Reason, "failed run: killed after") || len(fr.Partial) != 0 {
		t.Errorf("rows %d, missing %+v, partial %+v", len(fr.Rows), fr.Missing, fr.Partial)
	}
	if _, err := Build("host", groups[1:], nil, comparison.Options{}); err == nil || !strings.Contains(err.Error(), "no host has results to compare") {
		t.Errorf("only the killed host: %v", err)
	}
}

// TestFleetJSONIdenticalHost: a host whose two sides are the same values
// is a change of 0 with its medians in --format json, as compare gives
// it (contend-plot --fleet drew no point for it while it was null).
func TestFleetJSONIdenticalHost(t *testing.T) {
	same := hostAB("vm", "6.1.0", 1)
	a := same.Reps[0].Metrics.Get("time")
	for i := range same.Reps {
		same.Reps[i].Metrics.Set("time", a)
	}
	fr, err := Build("host", []Group{abGroup("h1", hostAB("vm", "6.1.0", 0.8)), abGroup("h2", same)}, nil, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !fr.Rows[1].Row.Identical {
		t.Fatalf("h2 not identical: %+v", fr.Rows[1].Row)
	}
	var buf bytes.Buffer
	if err := fr.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Groups []struct {
			Key                      string
			Change, MedianA, MedianB *float64
			ChangeLo                 *float64 `json:"change_lo"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	g := j.Groups[1]
	if g.Key != "h2" || g.Change == nil || *g.Change != 0 || g.ChangeLo != nil {
		t.Errorf("h2: change %v [%v, ...], want 0 without an interval:\n%s", g.Change, g.ChangeLo, buf.String())
	}
}

// fleetFile is an ab file of one host: n runs a side, log-normal with run
// SD sd around 10 ms, side B times ratio.
func fleetFile(rng *rand.Rand, n int, sd, ratio float64) *results.File {
	a, b := make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = 10e6 * math.Exp(sd*rng.NormFloat64())
		b[i] = 10e6 * ratio * math.Exp(sd*rng.NormFloat64())
	}
	return file("faultme", twoMetrics[:1], []string{"a", "b"}, map[string][][]float64{"time": {a, b}})
}

func cfgValues(f *results.File, c int) []float64 {
	var xs []float64
	for _, r := range f.Reps {
		if r.Config == c {
			xs = append(xs, r.Metrics.Get("time"))
		}
	}
	return xs
}

// TestFleetTooSmallHostNotCounted: a host of 2+2 runs, whose test cannot
// reach 5%, is listed as not tested and counted nowhere: not in the Holm
// family (it doubled another host's p from 0.026 to 0.052), not in the
// direction, not in the fleet estimate.
func TestFleetTooSmallHostNotCounted(t *testing.T) {
	small := file("faultme", twoMetrics[:1], []string{"a", "b"}, map[string][][]float64{"time": {{10e6, 10.1e6}, {14e6, 14.2e6}}})
	groups := []Group{abGroup("h1", hostAB("vm", "6.1.0", 0.8)), abGroup("h2", hostAB("vm", "6.1.0", 0.82)), abGroup("tiny", small)}
	fr, err := Build("host", groups, nil, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Untested) != 1 || fr.Untested[0].Name != "tiny" || !strings.Contains(fr.Untested[0].Reason, "2+2 runs") {
		t.Fatalf("untested: %+v", fr.Untested)
	}
	for _, r := range fr.Rows[:2] {
		if r.Row.Cmp.FamilySize != 2 {
			t.Errorf("%s: Holm family of %d, want 2 (the tested hosts)", r.Key, r.Row.Cmp.FamilySize)
		}
	}
	if fr.Fleet == nil || fr.Fleet.K != 2 || !fr.Agree || fr.Majority != -1 || fr.count(1) != 0 {
		t.Errorf("fleet %+v agree %v majority %d", fr.Fleet, fr.Agree, fr.Majority)
	}
	var buf bytes.Buffer
	fr.Write(&buf, "text")
	for _, want := range []string{"Not tested (too few runs): tiny", "of 2 tested hosts", "not tested\n", "tiny: 2+2 runs: the U test cannot reach p < 0.05"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	fr.Write(&buf, "json")
	var j JSON
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Untested) != 1 || j.Groups[2].Tested || j.Groups[2].Verdict != "not tested" || j.Fleet == nil || j.Fleet.Groups != 2 {
		t.Errorf("json: %s", buf.String())
	}
}

// TestFleetEstimate: the fleet line is analysis.RandomEffects of the
// hosts' log ratios, in words; hosts whose change differs are said to.
func TestFleetEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var groups []Group
	var es []analysis.Effect
	for i, ratio := range []float64{1.05, 1.06, 1.04, 1.05} {
		f := fleetFile(rng, 8, 0.02, ratio)
		g := abGroup(fmt.Sprintf("h%d", i), f)
		groups = append(groups, g)
		e, _ := analysis.LogRatioEffect(cfgValues(f, 0), cfgValues(f, 1))
		es = append(es, e)
	}
	want, _ := analysis.RandomEffects(es, 0.95)
	fr, err := Build("host", groups, nil, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fr.Fleet == nil || *fr.Fleet != want {
		t.Fatalf("fleet %+v, want %+v", fr.Fleet, want)
	}
	var buf bytes.Buffer
	fr.Write(&buf, "text")
	line := fmt.Sprintf("Across hosts: %s %s, p", units.Percent(math.Expm1(want.Estimate)), report.PercentRange(math.Expm1(want.Lo), math.Expm1(want.Hi)))
	for _, w := range []string{line, "(random effects over 4 hosts, ratio of geometric means): slower", "Between hosts: no evidence that the change differs"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, buf.String())
		}
	}
	// One host with a change of its own: the change differs between hosts.
	groups[3] = abGroup("h3", fleetFile(rng, 8, 0.02, 1.30))
	fr, _ = Build("host", groups, nil, comparison.Options{})
	buf.Reset()
	fr.Write(&buf, "text")
	if fr.Fleet.HetP >= 0.05 || !strings.Contains(buf.String(), "Between hosts: the change DIFFERS") {
		t.Errorf("heterogeneous fleet: %+v\n%s", fr.Fleet, buf.String())
	}
}

// TestFleetAASimulation: through Build, fleets of 4 hosts with no
// change call a fleet-wide change at most alpha of the time (3 SEs), and
// find a +5% change in nearly all.
func TestFleetAASimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 26))
	const sims = 300
	rej, found := 0, 0
	for s := 0; s < sims; s++ {
		for _, ratio := range []float64{1, 1.05} {
			var groups []Group
			for h := 0; h < 4; h++ {
				groups = append(groups, abGroup(fmt.Sprintf("h%d", h), fleetFile(rng, 6, 0.03, ratio)))
			}
			fr, err := Build("host", groups, nil, comparison.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if fr.Fleet.P < 0.05 {
				if ratio == 1 {
					rej++
				} else if fr.Fleet.Estimate > 0 {
					found++
				}
			}
		}
	}
	t.Logf("A/A fleets: %d of %d called a change; +5%%: %d of %d found", rej, sims, found, sims)
	if float64(rej)/sims > 0.05+3*math.Sqrt(0.05*0.95/sims) {
		t.Errorf("A/A fleets called a change %d of %d times", rej, sims)
	}
	if found < sims*8/10 {
		t.Errorf("+5%% found in %d of %d fleets", found, sims)
	}
}

// TestFleetOppositeMediansRemarked: a host whose medians go up while its
// HL change goes down is marked and explained.
func TestFleetOppositeMediansRemarked(t *testing.T) {
	// Bimodal B: most values below A, the median above it.
	odd := file("faultme", twoMetrics[:1], []string{"a", "b"}, map[string][][]float64{"time": {
		{10e6, 10.1e6, 10.2e6, 10.3e6, 10.4e6, 10.5e6, 10.6e6},
		{5e6, 5.01e6, 5.02e6, 10.35e6, 10.36e6, 10.37e6, 10.38e6}}})
	fr, err := Build("host", []Group{abGroup("h1", hostAB("vm", "6.1.0", 0.8)), abGroup("odd", odd)}, nil, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := fr.Rows[1].Row.Cmp
	if !(c.Change*c.Estimate < 0) {
		t.Fatalf("test data: change %v, estimate %v: not opposite", c.Change, c.Estimate)
	}
	var buf bytes.Buffer
	fr.Write(&buf, "text")
	if !strings.Contains(buf.String(), "* odd: the medians moved") || !strings.Contains(buf.String(), " *\n") {
		t.Errorf("no remark:\n%s", buf.String())
	}
}
