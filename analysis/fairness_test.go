package analysis

import (
	"math"
	"testing"
)

func TestFairnessOf(t *testing.T) {
	f := FairnessOf([]float64{2, 2, 2, 2})
	if f.Jain != 1 || f.MinMax != 1 || f.PopStdDev != 0 || f.Mean != 2 {
		t.Errorf("equal: %+v", f)
	}
	f = FairnessOf([]float64{4, 0, 0, 0})
	if f.Jain != 0.25 || f.MinMax != 0 || f.Max != 4 {
		t.Errorf("one thread did all: %+v", f)
	}
	// 1,2,3: mean 2, population sd sqrt(2/3), Jain 36/(3*14).
	f = FairnessOf([]float64{1, 2, 3})
	if math.Abs(f.PopStdDev-math.Sqrt(2.0/3)) > 1e-15 || math.Abs(f.Jain-36.0/42) > 1e-15 || math.Abs(f.MinMax-1.0/3) > 1e-15 {
		t.Errorf("1,2,3: %+v", f)
	}
	if z := FairnessOf(nil); z.N != 0 || z.Jain != 0 {
		t.Errorf("empty: %+v", z)
	}
}
