package analysis

import (
	"errors"
	"math"
	"testing"
)

func TestWelchEdgeCases(t *testing.T) {
	if _, err := Welch(nil, []float64{1, 2}, TwoSided, 0.95); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	if _, err := Welch([]float64{1}, []float64{1, 2}, TwoSided, 0.95); err == nil {
		t.Errorf("n=1: no error")
	}
	if _, err := Welch([]float64{1, math.NaN()}, []float64{1, 2}, TwoSided, 0.95); err == nil {
		t.Errorf("NaN: no error")
	}
	r, err := Welch([]float64{2, 2, 2}, []float64{2, 2}, TwoSided, 0.95)
	if err != nil || r.P != 1 || r.T != 0 || len(r.Warnings) == 0 {
		t.Errorf("all equal: %+v %v", r, err)
	}
	r, _ = Welch([]float64{2, 2, 2}, []float64{3, 3}, TwoSided, 0.95)
	if r.P != 0 || !math.IsInf(r.T, 1) || r.Lo != 1 || r.Hi != 1 {
		t.Errorf("constant samples differing: %+v", r)
	}
	r, _ = Welch([]float64{2, 2, 2}, []float64{3, 3}, Less, 0.95)
	if r.P != 1 {
		t.Errorf("constant samples, wrong side: P = %v", r.P)
	}
}

// TestWelchCIMatchesTest checks that the interval excludes 0 exactly when
// the two-sided test rejects at 1-confidence.
func TestWelchCIMatchesTest(t *testing.T) {
	a := []float64{10, 11, 12, 13, 14}
	for _, shift := range []float64{0, 1, 2, 2.5, 3, 4, 6} {
		b := []float64{10 + shift, 12 + shift, 14 + shift, 11.5 + shift}
		r, err := Welch(a, b, TwoSided, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		excludes := r.Lo > 0 || r.Hi < 0
		if excludes != (r.P < 0.05) {
			t.Errorf("shift %v: CI [%v, %v] but P %v", shift, r.Lo, r.Hi, r.P)
		}
	}
}
