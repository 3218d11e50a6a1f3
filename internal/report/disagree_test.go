package report

import (
	"bytes"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// bimodal returns lo values near 1 and hi values near 10, distinct.
func bimodal(lo, hi int, off float64) []float64 {
	var xs []float64
	for i := 0; i < lo; i++ {
		xs = append(xs, 1+off+0.01*float64(i))
	}
	for i := 0; i < hi; i++ {
		xs = append(xs, 10+off+0.01*float64(i))
	}
	return xs
}

func scaled(f float64, xs []float64) []float64 {
	for i := range xs {
		xs[i] *= f
	}
	return xs
}

// TestHeadlineSaysWhenMediansDisagree: with bimodal samples the medians
// jump from one mode to the other while most values do not move (the
// issue's "x: 10 -> 1.046, -89.5% [-1.7%, +1.6%], p=1"), or move the other
// way ("10.05 ns -> 2.095 ns, -79.2% [+85.2%, +101.0%]: slower"). The
// headline prints the Hodges-Lehmann estimate inside its interval and says
// in words what the medians did.
func TestHeadlineSaysWhenMediansDisagree(t *testing.T) {
	for _, c := range []struct {
		name   string
		unit   string
		a, b   []float64
		want   []string
		better string
	}{
		{"same values, other median", "count", bimodal(7, 8, 0), bimodal(8, 7, 0.005),
			[]string{"x: 10 -> 1.075, HL -0.0% [-5.2%, +2.5%], p=1", "no significant change",
				"the medians fall by 89.2%, outside the interval of the Hodges-Lehmann estimate: the samples differ in shape"}, ""},
		{"medians fall, values rise", "ns", bimodal(7, 8, 0), scaled(2, bimodal(8, 7, 0.005)),
			[]string{"x: 10 ns -> 2.150 ns, HL ", "the medians fall by 78.5%", "while the Hodges-Lehmann estimate rises: the samples differ in shape"}, "lower"},
	} {
		metrics := []results.Metric{{Name: "x", Unit: c.unit, Better: c.better}}
		f := file("w", metrics, []string{"a", "b"}, map[string][][]float64{"x": {c.a, c.b}})
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h := HeadlineFor(r, r.Pairs[0])
		m := pointInterval.FindStringSubmatch(h)
		if m == nil {
			t.Fatalf("%s: no change with an interval in %q", c.name, h)
		}
		if p, lo, hi := pctValue(t, m[1]), pctValue(t, m[2]), pctValue(t, m[3]); p < lo || p > hi {
			t.Errorf("%s: %s outside its interval", c.name, m[0])
		}
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("%s: headline lacks %q:\n%s", c.name, w, h)
			}
		}
		var buf bytes.Buffer
		if err := Write(&buf, r, "text"); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(strings.Join(strings.Fields(buf.String()), " "), "the samples differ in shape"); n != 1 {
			t.Errorf("%s: the disagreement is said %d times, want once (in the headline):\n%s", c.name, n, buf.String())
		}
	}
}

// TestFootnoteNamesFallbackEstimator: a metric with values <= 0 has no
// log-ratio; the footnote names the estimator used for it: for values >= 0
// with zeros the shift in the metric's unit, for negative values the
// shift over |median(A)|.
func TestFootnoteNamesFallbackEstimator(t *testing.T) {
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "delta", Unit: "count"}, {Name: "tlb", Unit: "count"}}
	f := file("w", metrics, []string{"a", "b"}, map[string][][]float64{
		"time":  {{10, 11, 12, 13, 14, 15, 16}, {12, 13, 14, 15, 16, 17, 18}},
		"delta": {{-1, 0, 1, 2, 3, 4, 5}, {1, 2, 3, 4, 5, 6, 7}},
		"tlb":   {{0, 0, 0, 1, 2, 5, 0}, {0, 0, 1, 0, 0, 0, 0}},
	})
	var buf bytes.Buffer
	if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{}, "text"); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(buf.String()), " ")
	for _, want := range []string{
		"HL change: Hodges-Lehmann estimate of B/A-1 and its 95% interval, on log values; for tlb (values >= 0, some 0): the Hodges-Lehmann shift B-A and its interval, in the metric's unit (no ratio is defined at 0; a shift over median(A) could reach below -100%); for delta (values < 0): the Hodges-Lehmann shift B-A over |median(A)|, median(A) taken as exact.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, buf.String())
		}
	}
}
