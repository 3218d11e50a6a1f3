package analysis

import (
	"errors"
	"math"
	"testing"
)

func TestTrendEdgeCases(t *testing.T) {
	if _, err := MannKendall(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("MannKendall empty: %v", err)
	}
	if _, err := Spearman(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("Spearman empty: %v", err)
	}
	if _, err := MannKendall([]float64{1, math.NaN()}); err == nil {
		t.Errorf("MannKendall NaN: no error")
	}
	if _, err := Spearman([]float64{math.Inf(1), 1}); err == nil {
		t.Errorf("Spearman Inf: no error")
	}
	for _, xs := range [][]float64{{1}, {2, 2, 2, 2}} {
		mk, err := MannKendall(xs)
		if err != nil || mk.P != 1 || mk.S != 0 || len(mk.Warnings) == 0 {
			t.Errorf("MannKendall(%v) = %+v, %v", xs, mk, err)
		}
		sp, err := Spearman(xs)
		if err != nil || sp.P != 1 || sp.Rho != 0 || len(sp.Warnings) == 0 {
			t.Errorf("Spearman(%v) = %+v, %v", xs, sp, err)
		}
	}
	sp, _ := Spearman([]float64{1, 2})
	if sp.P != 1 || sp.Rho != 1 || len(sp.Warnings) == 0 {
		t.Errorf("Spearman n=2: %+v", sp)
	}
	sp, _ = Spearman([]float64{5, 4, 3, 2, 1})
	if sp.Rho != -1 || sp.P != 0 {
		t.Errorf("Spearman decreasing: %+v", sp)
	}
	mk, _ := MannKendall([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	if mk.S != 66 || mk.Tau != 1 || !(mk.P < 0.001) {
		t.Errorf("MannKendall increasing: %+v", mk)
	}
}
