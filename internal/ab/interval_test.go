package ab

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/results"
)

// abFileOf is an ab file of the times a (side a) and b (side b),
// interleaved in pairs.
func abFileOf(a, b []float64) *results.File {
	f := &results.File{Kind: "ab", Workload: "w", Primary: "time", Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}},
		Configs: []results.Config{{Name: "a"}, {Name: "b"}}}
	for i := range a {
		for c, v := range []float64{a[i], b[i]} {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Config: c, Round: i, Status: results.StatusOK, Metrics: results.ValuesOf(map[string]float64{"time": v})})
		}
	}
	return f
}

var headlineCI = regexp.MustCompile(`HL ([-+][0-9.]+)% \[([-+][0-9.]+)%, ([-+][0-9.]+)%\]`)

// TestSequentialIntervalMatchesDecision: when a sequential test decides
// (ab --until), the comparison is at the level of its last look, and the
// interval printed must be the one of that level. It was the 95% interval:
// "HL +7.4% [+1.7%, +33.6%] ... no significant change", an interval that
// excludes 0 beside a test that found nothing. Here p is between the
// look's level and 0.05, so the 95% interval excludes 0 and the test at
// the look's level does not decide: the printed interval must contain 0
// and say its level.
func TestSequentialIntervalMatchesDecision(t *testing.T) {
	const nominal = 0.005
	var a, b []float64
	for i := 0; i < 10; i++ {
		a = append(a, 100+float64(i)*1.3)
	}
	found := false
	for s := 1.0; s < 10 && !found; s += 0.25 {
		b = b[:0]
		for i := range a {
			b = append(b, a[(i*3)%10]+s)
		}
		mw, _ := analysis.MannWhitney(a, b, analysis.TwoSided)
		rc, _ := analysis.RelativeChange(a, b, 0.95)
		found = mw.P > nominal && mw.P < 0.05 && rc.HasCI && rc.Lo > 0
	}
	if !found {
		t.Fatal("no shift gives nominal < p < 0.05 with a 95% interval above 0")
	}
	seq, err := Sequential(0.05, 3, 10, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d := &analysis.Decision{N: 10, NA: 10, NB: 10, Stop: true, NominalAlpha: nominal, Reason: "reached the maximum of 10 pairs: no significant change"}
	var out strings.Builder
	WriteReport(&out, abFileOf(a, b), Report{Order: OrderAB, Alpha: 0.05, Rule: seq, Decision: d})
	text := out.String()
	var head string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "w time:") {
			head = l
		}
	}
	m := headlineCI.FindStringSubmatch(head)
	if m == nil {
		t.Fatalf("no headline with an interval:\n%s", text)
	}
	lo, _ := strconv.ParseFloat(m[2], 64)
	hi, _ := strconv.ParseFloat(m[3], 64)
	if !strings.Contains(text, "no significant change") || lo > 0 || hi < 0 {
		t.Errorf("the interval [%g%%, %g%%] does not match the decision at level %g:\n%s", lo, hi, nominal, text)
	}
	if !strings.Contains(head, "99.5% CI") {
		t.Errorf("the headline does not say the interval's level (99.5%%):\n%s", head)
	}
	one := strings.Join(strings.Fields(text), " ")
	if !strings.Contains(one, "intervals at 99.5%: the level of the test at this look") {
		t.Errorf("the report does not say why the intervals are at 99.5%%:\n%s", text)
	}
}
