package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
	"contend/internal/testsize"
	"contend/internal/textfmt"
)

// pointInterval matches a printed change with its interval, in the
// headline ("-41.4% [-64.8%, -39.5%]").
var pointInterval = regexp.MustCompile(`([+-][0-9.e+]+)% \[([+-][0-9.e+]+)%, ([+-][0-9.e+]+)%\]`)

func pctValue(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		t.Fatalf("cannot read %q: %v", s, err)
	}
	return v
}

// drawSides returns two samples of 15, 24, 37 or 50 values: lognormal
// with a random shift, or bimodal mixtures of two modes in random
// proportions (where the medians and the Hodges-Lehmann estimate part).
// Four sizes, not every size between: the minimum detectable change is
// simulated once for each pair of sizes (40 ms) and then cached.
func drawSides(rng *rand.Rand, bimodal bool) (a, b []float64) {
	sizes := [...]int{15, 24, 37, 50}
	n1, n2 := sizes[rng.Intn(len(sizes))], sizes[rng.Intn(len(sizes))]
	if !bimodal {
		shift := rng.NormFloat64() * 0.1
		for i := 0; i < n1; i++ {
			a = append(a, 10*math.Exp(rng.NormFloat64()*0.05))
		}
		for i := 0; i < n2; i++ {
			b = append(b, 10*math.Exp(shift+rng.NormFloat64()*0.05))
		}
		return a, b
	}
	lo, hi := 1+rng.Float64(), 10+rng.Float64()
	pa, pb := rng.Float64(), rng.Float64()
	draw := func(n int, p float64) []float64 {
		var xs []float64
		for i := 0; i < n; i++ {
			m := lo
			if rng.Float64() < p {
				m = hi
			}
			xs = append(xs, m*math.Exp(rng.NormFloat64()*0.02))
		}
		return xs
	}
	return draw(n1, pa), draw(n2, pb)
}

// TestPrintedEstimateInsideInterval draws random and bimodal samples
// (seeded; 100 draws, 300 with CONTEND_FULL_SIM=1) and reads the text, Markdown and JSON reports back: every
// printed change lies inside the interval printed beside it, and when the
// change of the medians lies outside that interval, the headline says so.
func TestPrintedEstimateInsideInterval(t *testing.T) {
	rng := rand.New(rand.NewSource(20261130))
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "x", Unit: "count"}}
	bad, disagreements := 0, 0
	draws := testsize.Pick(100, 300)
	for i := 0; i < draws; i++ {
		ta, tb := drawSides(rng, i%2 == 1)
		xa, xb := drawSides(rng, i%3 != 0)
		xa, xb = xa[:min(len(xa), len(ta))], xb[:min(len(xb), len(tb))]
		for len(xa) < len(ta) {
			xa = append(xa, xa[0])
		}
		for len(xb) < len(tb) {
			xb = append(xb, xb[0])
		}
		f := file("w", metrics, []string{"a", "b"}, map[string][][]float64{"time": {ta, tb}, "x": {xa, xb}})
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var text, md, js bytes.Buffer
		for _, x := range []struct {
			w      *bytes.Buffer
			format string
		}{{&text, "text"}, {&md, "markdown"}, {&js, "json"}} {
			if err := Write(x.w, r, x.format); err != nil {
				t.Fatal(err)
			}
		}
		check := func(where, point, lo, hi string) {
			p, l, h := pctValue(t, point), pctValue(t, lo), pctValue(t, hi)
			if !(l <= p && p <= h) {
				bad++
				if bad <= 5 {
					t.Errorf("draw %d %s: printed %s%% outside its interval [%s%%, %s%%]", i, where, point, lo, hi)
				}
			}
		}
		// The headline and the Markdown table cells.
		head := HeadlineFor(r, r.Pairs[0])
		for _, m := range pointInterval.FindAllStringSubmatch(head+"\n"+md.String(), -1) {
			check("headline/markdown", m[1], m[2], m[3])
		}
		// The text table: the change on the metric's line, its interval
		// on the next line, in the same column.
		lines := strings.Split(text.String(), "\n")
		for li, l := range lines {
			if !strings.HasPrefix(l, "time ") && !strings.HasPrefix(l, "x ") || li+1 >= len(lines) {
				continue
			}
			col := regexp.MustCompile(`[+-][0-9.e+]+%`).FindStringIndex(l)
			next := lines[li+1]
			if col == nil || len(next) < col[1] {
				continue
			}
			ci := regexp.MustCompile(`\[([+-][0-9.e+]+)%, ([+-][0-9.e+]+)%\]$`).FindStringSubmatch(strings.TrimRight(next[:col[1]], " "))
			if ci == nil {
				t.Fatalf("draw %d: no interval under %q in\n%s", i, l, text.String())
			}
			check("table", strings.TrimSuffix(l[col[0]:col[1]], "%"), ci[1], ci[2])
		}
		for li, l := range lines {
			if utf8.RuneCountInString(l) > textfmt.Width {
				t.Errorf("draw %d: line %d longer than %d: %q", i, li+1, textfmt.Width, l)
			}
		}
		// JSON: change and its interval are one estimator.
		var raw struct {
			Pairs []struct {
				Metrics []map[string]any
			}
		}
		json.Unmarshal(js.Bytes(), &raw)
		for _, m := range raw.Pairs[0].Metrics {
			c, lo, hi := m["change"], m["change_lo"], m["change_hi"]
			if c == nil || lo == nil || hi == nil {
				continue
			}
			if !(lo.(float64) <= c.(float64) && c.(float64) <= hi.(float64)) {
				bad++
				t.Errorf("draw %d JSON %s: change %v outside [%v, %v]", i, m["metric"], c, lo, hi)
			}
		}
		// The headline says when the medians tell another story.
		if m := pointInterval.FindStringSubmatch(head); m != nil {
			medChange := 100 * (analysis.Median(tb)/analysis.Median(ta) - 1)
			p, l, h := pctValue(t, m[1]), pctValue(t, m[2]), pctValue(t, m[3])
			if math.Abs(medChange-p) > 0.05 && (medChange < l-0.05 || medChange > h+0.05) {
				disagreements++
				if !strings.Contains(head, "the medians") {
					t.Errorf("draw %d: the medians change by %.3g%%, the headline prints %s, but does not say so: %s",
						i, medChange, m[0], head)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d printed estimates outside their intervals in %d draws", bad, draws)
	}
	if disagreements == 0 {
		t.Errorf("no draw where the medians and the estimate disagree: the test does not test that")
	}
	t.Logf("%d of %d draws: the medians disagree with the estimate (headline says so)", disagreements, draws)
}
