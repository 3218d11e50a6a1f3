package analysis

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"
)

// TestSignedRankReference checks SignedRank's p-value, statistic, method
// and Hodges-Lehmann estimate against scipy.stats.wilcoxon
// (testdata/gen_signedrank.py): exact, ties and zeros, more than 50.
func TestSignedRankReference(t *testing.T) {
	b, err := os.ReadFile("testdata/signedrank_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		D        []float64 `json:"d"`
		P        float64   `json:"p"`
		WPlus    float64   `json:"w_plus"`
		Exact    bool      `json:"exact"`
		Estimate float64   `json:"estimate"`
	}
	if err := json.Unmarshal(b, &cases); err != nil || len(cases) < 8 {
		t.Fatalf("reference: %v, %d cases", err, len(cases))
	}
	for i, c := range cases {
		r, err := SignedRank(c.D)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if r.Exact != c.Exact || r.WPlus != c.WPlus || math.Abs(r.P-c.P) > 1e-12*math.Max(1, c.P) || math.Abs(r.Estimate-c.Estimate) > 1e-12 {
			t.Errorf("case %d (n %d): exact %v W+ %g p %.15g HL %g; SciPy %v %g %.15g %g", i, len(c.D), r.Exact, r.WPlus, r.P, r.Estimate, c.Exact, c.WPlus, c.P, c.Estimate)
		}
	}
	if _, err := SignedRank([]float64{0, 0}); !errors.Is(err, ErrNoData) {
		t.Errorf("all zeros: %v, want ErrNoData", err)
	}
	if _, err := SignedRank([]float64{1, math.NaN()}); err == nil {
		t.Error("NaN accepted")
	}
}

// TestCVReference checks CV against numpy (x.std(ddof=1)/abs(x.mean())),
// near the largest float too.
func TestCVReference(t *testing.T) {
	xs := []float64{5, 10, 15, 5.5, 10.5, 16, 4.5, 9.5}
	if got := CV(xs); math.Abs(got-0.46226845560719987) > 1e-14 {
		t.Errorf("CV %.17g, numpy 0.46226845560719987", got)
	}
	big := make([]float64, len(xs))
	for i, x := range xs {
		big[i] = x * 1e306
	}
	if got := CV(big); math.Abs(got-0.46226845560719987) > 1e-12 {
		t.Errorf("CV near the largest float %.17g", got)
	}
	if !math.IsNaN(CV([]float64{1})) || !math.IsNaN(CV([]float64{-1, 1})) {
		t.Error("CV of one value or of mean 0 is not NaN")
	}
}
