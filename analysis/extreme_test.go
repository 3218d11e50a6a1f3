package analysis

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// extremeCase is one case of testdata/extreme.json, written by
// testdata/gen_extreme.py with SciPy on rescaled data. Regenerate from the
// repository root with:
//
//	/usr/bin/python3 analysis/testdata/gen_extreme.py > analysis/testdata/extreme.json
type extremeCase struct {
	Name  string
	A, B  []float64
	Welch struct {
		T, DF, P         float64
		Diff, SE, Lo, Hi *float64
	}
	MWP      float64        `json:"mw_p"`
	SummaryA extremeSummary `json:"summary_a"`
	SummaryB extremeSummary `json:"summary_b"`
	Rel      struct {
		Method           string
		Change, Estimate float64
		Lo, Hi           *float64
	}
}

type extremeSummary struct {
	Median, Mean, Q1, Q3 float64
	StdDev               *float64
}

func loadExtreme(t *testing.T) []extremeCase {
	t.Helper()
	data, err := os.ReadFile("testdata/extreme.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []extremeCase }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("testdata/extreme.json has no cases")
	}
	return ref.Cases
}

// TestExtremeValues checks every statistic on subnormal, tiny, huge and
// near-largest values, and on samples mixing magnitudes and signs, against
// SciPy on rescaled data: the magnitude of valid numbers must not change a
// location/scale-invariant result, overflow a median or a mean, or break
// a logarithm.
func TestExtremeValues(t *testing.T) {
	for _, c := range loadExtreme(t) {
		t.Run(c.Name, func(t *testing.T) {
			w, err := Welch(c.A, c.B, TwoSided, 0.95)
			if err != nil {
				t.Fatalf("Welch: %v", err)
			}
			checkClose(t, "Welch T", w.T, c.Welch.T, 1e-9, 0)
			checkClose(t, "Welch DF", w.DF, c.Welch.DF, 1e-9, 0)
			checkClose(t, "Welch P", w.P, c.Welch.P, tolApprox, 1e-300)
			for _, x := range []struct {
				name string
				got  float64
				want *float64
			}{{"Diff", w.Diff, c.Welch.Diff}, {"SE", w.SE, c.Welch.SE}, {"Lo", w.Lo, c.Welch.Lo}, {"Hi", w.Hi, c.Welch.Hi}} {
				if x.want != nil {
					checkClose(t, "Welch "+x.name, x.got, *x.want, 1e-6, 0)
				}
			}

			mw, err := MannWhitney(c.A, c.B, TwoSided)
			if err != nil {
				t.Fatalf("MannWhitney: %v", err)
			}
			checkClose(t, "MannWhitney P", mw.P, c.MWP, tolApprox, 1e-300)

			for _, s := range []struct {
				side string
				xs   []float64
				want extremeSummary
			}{{"A", c.A, c.SummaryA}, {"B", c.B, c.SummaryB}} {
				got, err := Summarize(s.xs, 0.95)
				if err != nil {
					t.Fatalf("Summarize %s: %v", s.side, err)
				}
				checkClose(t, s.side+" Median", got.Median, s.want.Median, 1e-15, 0)
				checkClose(t, s.side+" Median()", Median(s.xs), s.want.Median, 1e-15, 0)
				checkClose(t, s.side+" Mean", got.Mean, s.want.Mean, 1e-12, 0)
				checkClose(t, s.side+" Q1", got.Q1, s.want.Q1, 1e-12, 0)
				checkClose(t, s.side+" Q3", got.Q3, s.want.Q3, 1e-12, 0)
				if s.want.StdDev != nil {
					checkClose(t, s.side+" StdDev", got.StdDev, *s.want.StdDev, 1e-9, 0)
				}
				if math.IsNaN(got.CV) || math.IsInf(got.CV, 0) {
					t.Errorf("%s CV %v", s.side, got.CV)
				}
			}

			rel, err := RelativeChange(c.A, c.B, 0.95)
			if err != nil {
				t.Fatalf("RelativeChange: %v", err)
			}
			wantMethod := RelLogShift
			if c.Rel.Method == "shift" {
				wantMethod = RelShiftOverMedian
			}
			if rel.Method != wantMethod {
				t.Errorf("RelativeChange method %v, want %v", rel.Method, wantMethod)
			}
			checkClose(t, "rel Change", rel.Change, c.Rel.Change, 1e-12, 1e-15)
			checkClose(t, "rel Estimate", rel.Estimate, c.Rel.Estimate, 1e-9, 1e-12)
			if c.Rel.Lo != nil {
				checkClose(t, "rel Lo", rel.Lo, *c.Rel.Lo, 1e-9, 1e-12)
				checkClose(t, "rel Hi", rel.Hi, *c.Rel.Hi, 1e-9, 1e-12)
			}

			for _, test := range []Test{TestMannWhitney, TestWelch} {
				cmp, err := Compare(c.A, c.B, CompareOptions{Test: test, Threshold: 0.02})
				if err != nil {
					t.Fatalf("Compare %v: %v", test, err)
				}
				cs := []*Comparison{&cmp, &cmp}
				c2 := cmp
				cs[1] = &c2
				if err := AdjustHolm(cs); err != nil {
					t.Fatalf("AdjustHolm %v: %v", test, err)
				}
				if math.IsNaN(cmp.P) || !cmp.HasChangeCI || math.IsNaN(cmp.ChangeLo) || math.IsNaN(cmp.MDE) {
					t.Errorf("Compare %v: P %v change interval %v [%v, %v] MDE %v",
						test, cmp.P, cmp.HasChangeCI, cmp.ChangeLo, cmp.ChangeHi, cmp.MDE)
				}
			}
		})
	}
}

// TestMidpointNoOverflow checks the medians of two values near the
// largest float, of both signs and subnormal.
func TestMidpointNoOverflow(t *testing.T) {
	max := math.MaxFloat64
	for _, c := range []struct{ x, y, want float64 }{
		{max, max, max},
		{max, max / 2, 0.75 * max},
		{-max, -max, -max},
		{-max, max, 0},
		{5e-324, 5e-324, 5e-324},
		{5e-324, 15e-324, 10e-324},
		{1, 3, 2},
		{-1, 2, 0.5},
	} {
		if got := Median([]float64{c.x, c.y}); got != c.want {
			t.Errorf("Median(%g, %g) = %g, want %g", c.x, c.y, got, c.want)
		}
	}
	if got := QuantileType7(0.5, []float64{-max, max}); got != 0 {
		t.Errorf("QuantileType7(0.5, ±max) = %g, want 0", got)
	}
}
