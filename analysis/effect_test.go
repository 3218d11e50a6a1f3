package analysis

import (
	"errors"
	"math"
	"testing"
)

func TestCliffsDelta(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{4, 5}, 1},
		{[]float64{4, 5}, []float64{1, 2, 3}, -1},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, 0},
		{[]float64{1, 2}, []float64{2, 3}, 0.75}, // pairs b-a: +1, 0, +2, +1
		{[]float64{7}, []float64{7}, 0},
	} {
		got, err := CliffsDelta(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("CliffsDelta(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
	// Relation to Mann-Whitney U: δ = 2U/(n1·n2) - 1.
	a := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	b := []float64{5, 3, 5, 8, 9, 7}
	d, _ := CliffsDelta(a, b)
	mw, _ := MannWhitney(a, b, TwoSided)
	checkClose(t, "delta vs U", d, 2*mw.U/48-1, 1e-14, 1e-15)
	if _, err := CliffsDelta(nil, b); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	if _, err := CliffsDelta(a, []float64{math.NaN()}); err == nil {
		t.Errorf("NaN: no error")
	}
}

func TestDeltaMagnitude(t *testing.T) {
	for d, want := range map[float64]string{
		0: "negligible", 0.146: "negligible", -0.147: "small", 0.2: "small",
		0.33: "medium", -0.47: "medium", 0.474: "large", -1: "large",
	} {
		if got := DeltaMagnitude(d); got != want {
			t.Errorf("DeltaMagnitude(%v) = %q, want %q", d, got, want)
		}
	}
}
