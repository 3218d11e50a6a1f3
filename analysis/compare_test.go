package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCompareVerdicts(t *testing.T) {
	a := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	slower := []float64{110, 111, 109, 110.5, 109.5, 110.2, 109.8, 110.1}
	tiny := []float64{101, 102, 100, 101.5, 100.5, 101.2, 100.8, 101.1}
	for _, c := range []struct {
		name string
		a, b []float64
		opt  CompareOptions
		want Verdict
	}{
		{"slower time", a, slower, CompareOptions{Better: LowerIsBetter}, VerdictWorse},
		{"faster time", slower, a, CompareOptions{Better: LowerIsBetter}, VerdictBetter},
		{"higher rate", a, slower, CompareOptions{Better: HigherIsBetter}, VerdictBetter},
		{"lower rate", slower, a, CompareOptions{Better: HigherIsBetter}, VerdictWorse},
		{"increase", a, slower, CompareOptions{}, VerdictIncrease},
		{"decrease", slower, a, CompareOptions{}, VerdictDecrease},
		{"welch", a, slower, CompareOptions{Test: TestWelch}, VerdictIncrease},
		{"within noise", a, tiny, CompareOptions{Threshold: 0.02}, VerdictWithinNoise},
		{"beyond noise", a, tiny, CompareOptions{Threshold: 0.005}, VerdictIncrease},
		{"same", a, a, CompareOptions{}, VerdictNoChange},
		{"too few", a[:3], slower[:3], CompareOptions{}, VerdictTooFewRuns},
		{"welch too few", a[:1], slower[:3], CompareOptions{Test: TestWelch}, VerdictTooFewRuns},
	} {
		got, err := Compare(c.a, c.b, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q (P %g, change %g, warnings %q)", c.name, got.Verdict, c.want, got.P, got.Change, got.Warnings)
		}
	}
}

func TestCompareFields(t *testing.T) {
	a := []float64{10, 11, 12, 13, 14, 15}
	b := []float64{20, 21, 22, 23, 24, 25}
	c, err := Compare(a, b, CompareOptions{Better: LowerIsBetter})
	if err != nil {
		t.Fatal(err)
	}
	if c.Alpha != 0.05 || c.Confidence != 0.95 || c.Power != 0.8 {
		t.Errorf("defaults: alpha %v confidence %v power %v", c.Alpha, c.Confidence, c.Power)
	}
	checkClose(t, "Change", c.Change, 22.5/12.5-1, 1e-12, 0)
	if c.ChangeMethod != RelLogShift || !c.HasChangeCI || !(c.ChangeLo <= c.Change && c.Change <= c.ChangeHi) {
		t.Errorf("change interval [%v, %v] by %v around %v", c.ChangeLo, c.ChangeHi, c.ChangeMethod, c.Change)
	}
	checkClose(t, "P", c.P, 2.0/924, 1e-12, 0)
	if c.AdjustedP != c.P || c.Sign != 1 || c.CliffsDelta != 1 || c.Magnitude != "large" {
		t.Errorf("got AdjustedP %v Sign %v delta %v %s", c.AdjustedP, c.Sign, c.CliffsDelta, c.Magnitude)
	}
	if c.MannWhitney == nil || c.Welch != nil || c.Method != "exact" {
		t.Errorf("test details: MW %v Welch %v method %q", c.MannWhitney, c.Welch, c.Method)
	}
	if !(c.MDE > 0) || !c.CanReachAlpha {
		t.Errorf("MDE %v CanReachAlpha %v", c.MDE, c.CanReachAlpha)
	}
	if c.SummaryA.Median != 12.5 || c.SummaryB.N != 6 {
		t.Errorf("summaries: %+v %+v", c.SummaryA, c.SummaryB)
	}
}

func TestCompareBadInput(t *testing.T) {
	if _, err := Compare(nil, []float64{1}, CompareOptions{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	if _, err := Compare([]float64{1}, []float64{math.Inf(1)}, CompareOptions{}); err == nil {
		t.Errorf("Inf: no error")
	}
	for _, opt := range []CompareOptions{{Alpha: 1.5}, {Alpha: -0.1}, {Confidence: 1}, {Threshold: -1}, {Threshold: math.NaN()}, {Test: 7}, {Better: 9}} {
		if _, err := Compare([]float64{1, 2}, []float64{3, 4}, opt); err == nil {
			t.Errorf("options %+v: no error", opt)
		}
	}
	// Zero and negative data fall back to the shift over the median.
	c, err := Compare([]float64{-1, 0, 1, 2, 3}, []float64{4, 5, 6, 7, 8}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.ChangeMethod != RelShiftOverMedian {
		t.Errorf("method %v", c.ChangeMethod)
	}
	// Median of A is 0: change undefined but no failure.
	c, err = Compare([]float64{-1, 0, 1}, []float64{4, 5, 6}, CompareOptions{})
	if err != nil || !math.IsNaN(c.Change) {
		t.Errorf("median(A)=0: change %v err %v", c.Change, err)
	}
}

func TestAdjustHolm(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{6, 7, 8, 9, 10}
	a8 := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	b8 := []float64{9, 10, 11, 12, 13, 14, 15, 16}
	var cs []*Comparison
	for i := 0; i < 3; i++ {
		x, y := a, b
		if i == 0 {
			x, y = a8, b8
		}
		c, err := Compare(x, y, CompareOptions{Alpha: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, &c)
	}
	for _, c := range cs {
		if c.Verdict != VerdictIncrease {
			t.Fatalf("before adjustment: %q (P %v)", c.Verdict, c.P)
		}
	}
	if err := AdjustHolm(append(cs, nil)); err != nil {
		t.Fatal(err)
	}
	// Holm: 3·2/12870 for the 8 vs 8 comparison, then 2·2/252 for both
	// 5 vs 5 ones.
	checkClose(t, "AdjustedP 8v8", cs[0].AdjustedP, 3*2.0/12870, 1e-12, 0)
	if cs[0].Verdict != VerdictIncrease {
		t.Errorf("8 vs 8 after adjustment: %q, want %q", cs[0].Verdict, VerdictIncrease)
	}
	for _, c := range cs[1:] {
		checkClose(t, "AdjustedP", c.AdjustedP, 2*2.0/252, 1e-12, 0)
		if c.Verdict != VerdictNoChange {
			t.Errorf("after adjustment: %q, want %q", c.Verdict, VerdictNoChange)
		}
	}
	for _, c := range cs {
		if c.FamilySize != 3 {
			t.Errorf("FamilySize %d, want 3", c.FamilySize)
		}
	}
}

// TestAdjustHolmFamilyTooSmall: 5 vs 5 runs reach p = 2/252 = 0.0079, but
// with 14 metrics adjusted together the smallest adjusted p-value is
// 14·0.0079 = 0.11 > 0.05: nothing can be significant, so the verdict is
// "too few runs", not "no significant change", even for completely
// separated samples. With 6 comparisons (0.048) the separated ones are
// significant.
func TestAdjustHolmFamilyTooSmall(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{6, 7, 8, 9, 10}
	family := func(m int) []*Comparison {
		var cs []*Comparison
		for i := 0; i < m; i++ {
			c, err := Compare(a, b, CompareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, &c)
		}
		if err := AdjustHolm(cs); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, c := range family(14) {
		if c.Verdict != VerdictTooFewRuns || c.CanReachAlpha {
			t.Fatalf("14 comparisons: %q (CanReachAlpha %v), want %q", c.Verdict, c.CanReachAlpha, VerdictTooFewRuns)
		}
		n := 0
		for _, w := range c.Warnings {
			if strings.HasPrefix(w, familyWarning) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d family warnings in %q", n, c.Warnings)
		}
	}
	cs := family(6)
	for _, c := range cs {
		if c.Verdict != VerdictIncrease || !c.CanReachAlpha {
			t.Fatalf("6 comparisons: %q, want %q", c.Verdict, VerdictIncrease)
		}
	}
	// Adjusting again with a smaller family restores the verdict.
	if err := AdjustHolm(cs[:1]); err != nil {
		t.Fatal(err)
	}
	if cs[0].Verdict != VerdictIncrease || cs[0].FamilySize != 1 {
		t.Errorf("re-adjusted alone: %q, family %d", cs[0].Verdict, cs[0].FamilySize)
	}
}
