package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/internal/comparison"
	"contend/internal/results"
	"contend/internal/textfmt"
)

// TestCompareExtremeValues compares samples of extreme magnitudes through
// the whole report: no Inf, NaN or runs of digits, every line within
// textfmt.Width, the interval of the subnormal samples not collapsed to 0.
func TestCompareExtremeValues(t *testing.T) {
	base := []float64{1.213, 1.145, 1.155, 1.201, 1.204, 1.136, 1.124, 1.14}
	other := []float64{1.302, 1.323, 1.327, 1.472, 1.17, 1.401, 1.263, 1.19, 1.284, 1.308}
	digits := regexp.MustCompile(`[0-9]{12,}`)
	for _, scale := range []float64{1e-310, 1e-300, 1e78, 1e154, 1e300, 1e308} {
		for _, unit := range []string{"ns", "count"} {
			var a, b []float64
			for _, x := range base {
				a = append(a, x*scale)
			}
			for _, x := range other {
				b = append(b, x*scale)
			}
			a, b = a[:8], b[:8]
			metrics := []results.Metric{{Name: "v", Unit: unit, Better: "lower"}}
			f := file("w", metrics, []string{"a", "b"}, map[string][][]float64{"v": {a, b}})
			for _, test := range []string{"U", "Welch"} {
				opt := comparison.Options{}
				if test == "Welch" {
					opt.Test = 1
				}
				var buf bytes.Buffer
				if err := Compare(&buf, []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, opt, "text"); err != nil {
					t.Fatalf("%g %s %s: %v", scale, unit, test, err)
				}
				out := buf.String()
				for _, bad := range []string{"Inf", "NaN", "+0.0%, +0.0%", " G"} {
					if strings.Contains(out, bad) {
						t.Errorf("%g %s %s: output has %q:\n%s", scale, unit, test, bad, out)
					}
				}
				if d := digits.FindString(out); d != "" {
					t.Errorf("%g %s %s: output has %q:\n%s", scale, unit, test, d, out)
				}
				if !strings.Contains(out, "HL +11.8% [+4.1%, +18.1%]") {
					t.Errorf("%g %s %s: no change of about +12%%:\n%s", scale, unit, test, out)
				}
				for i, l := range strings.Split(out, "\n") {
					if utf8.RuneCountInString(l) > textfmt.Width {
						t.Errorf("%g %s: line %d longer than %d: %q", scale, unit, i+1, textfmt.Width, l)
					}
				}
			}
		}
	}
}
