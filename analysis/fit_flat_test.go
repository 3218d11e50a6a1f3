package analysis

import (
	"strings"
	"testing"
)

// TestFitFlat fits an exactly flat curve: throughput 1000 at every N. The
// fits must say it is flat, not that throughput "rises for ever towards
// lambda/sigma" (USL) or that "sigma = 1 > 1" (Amdahl).
func TestFitFlat(t *testing.T) {
	n := []float64{1, 1, 2, 2, 4, 4, 8, 8, 16, 16}
	x := make([]float64, len(n))
	for i := range x {
		x[i] = 1000
	}
	u, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	m, err := FitAmdahl(n, x)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]struct {
		flat bool
		ws   []string
	}{"USL": {u.Flat, u.Warnings}, "Amdahl": {m.Flat, m.Warnings}} {
		all := strings.Join(f.ws, "; ")
		if !f.flat || !strings.Contains(all, "flat") || strings.Contains(all, "for ever") || strings.Contains(all, "= 1 > 1") {
			t.Errorf("%s: flat %v, warnings %q", name, f.flat, all)
		}
	}
	if u.PeakN != 1 || u.PeakX != u.Lambda {
		t.Errorf("USL flat: peak N %v X %v, want 1 and lambda %v", u.PeakN, u.PeakX, u.Lambda)
	}
	// A curve that does rise is not flat.
	for i := range x {
		x[i] = 1000 * n[i] / (1 + 0.1*(n[i]-1))
	}
	if u, _ := FitUSL(n, x); u.Flat {
		t.Errorf("rising curve called flat: %+v", u)
	}
}
