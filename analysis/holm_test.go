package analysis

import (
	"errors"
	"math"
	"testing"
)

func TestHolm(t *testing.T) {
	got, err := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	if err != nil {
		t.Fatal(err)
	}
	// Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → 0.06.
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		checkClose(t, "Holm", got[i], want[i], 1e-14, 0)
	}
	got, _ = Holm([]float64{0.9, 0.8})
	if got[0] != 1 || got[1] != 1 {
		t.Errorf("capping: %v", got)
	}
	if _, err := Holm(nil); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	for _, bad := range []float64{math.NaN(), -0.1, 1.5} {
		if _, err := Holm([]float64{0.1, bad}); err == nil {
			t.Errorf("Holm with %v: no error", bad)
		}
	}
}
