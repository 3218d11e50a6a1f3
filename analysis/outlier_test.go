package analysis

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestOutliers(t *testing.T) {
	xs := []float64{10, 10.2, 9.9, 10.1, 9.8, 10.0, 15, 10.3, 2}
	got, err := Outliers(xs, OutlierThreshold)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 6 || got[1] != 8 {
		t.Errorf("Outliers = %v, want [6 8]", got)
	}
	z, _ := ModifiedZScores([]float64{1, 2, 3, 4, 100})
	// median 3, MAD = median(2,1,0,1,97) = 1.
	checkClose(t, "z", z[4], 0.6745*97, 1e-12, 0)
	checkClose(t, "z", z[0], -0.6745*2, 1e-12, 0)
}

func TestOutliersMADZero(t *testing.T) {
	// More than half the values equal: MAD = 0, the mean absolute
	// deviation takes over.
	xs := []float64{5, 5, 5, 5, 5, 6, 50}
	z, err := ModifiedZScores(xs)
	if err != nil {
		t.Fatal(err)
	}
	meanAD := (1.0 + 45) / 7
	checkClose(t, "z", z[6], 45/(1.253314*meanAD), 1e-12, 0)
	for _, s := range z {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			t.Fatalf("non-finite score: %v", z)
		}
	}
	got, _ := Outliers(xs, OutlierThreshold)
	if len(got) != 1 || got[0] != 6 {
		t.Errorf("Outliers = %v, want [6]", got)
	}
	// All equal: no outliers, all scores 0.
	got, _ = Outliers([]float64{3, 3, 3}, OutlierThreshold)
	if len(got) != 0 {
		t.Errorf("all equal: %v", got)
	}
	got, _ = Outliers([]float64{3}, OutlierThreshold)
	if len(got) != 0 {
		t.Errorf("single: %v", got)
	}
	if _, err := Outliers(nil, OutlierThreshold); !errors.Is(err, ErrNoData) {
		t.Errorf("empty: %v", err)
	}
	if _, err := Outliers([]float64{1, math.Inf(1)}, OutlierThreshold); err == nil {
		t.Errorf("Inf: no error")
	}
}

// TestModifiedZScoresSameAsSortEach: random samples, with ties, zeros of
// both signs, subnormal and huge values, get bit for bit the scores
// they got before, and ModifiedZScores allocates two arrays of the sample's length, not four.
func TestModifiedZScoresSameAsSortEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	special := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-310, math.MaxFloat64, -math.MaxFloat64, 1, 1, 2}
	for trial := range 2000 {
		xs := make([]float64, 1+rng.IntN(40))
		for i := range xs {
			switch rng.IntN(4) {
			case 0:
				xs[i] = special[rng.IntN(len(special))]
			case 1:
				xs[i] = float64(rng.IntN(5))
			default:
				xs[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
			}
		}
		got, err := ModifiedZScores(xs)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := modifiedZScoresSortEach(xs) // sorted_test.go
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d: %v: scores %v, before %v", trial, xs, got, want)
			}
		}
	}
	xs := make([]float64, 10000)
	for i := range xs {
		xs[i] = 1e6 + float64(i%977)
	}
	if a := testing.AllocsPerRun(5, func() { ModifiedZScores(xs) }); a > 1 {
		t.Errorf("ModifiedZScores made %v allocations, want 1 (one array)", a)
	}
}

// TestHighScoresAsModifiedZScores: on random samples (sizes 1 to 3,000,
// ties, zeros of both signs, subnormal and huge values, MAD 0 and all
// equal), HighScores given the sorted sample flags exactly the values
// whose ModifiedZScores exceed the threshold, with the same scores bit
// for bit, and changes nothing it is given.
func TestHighScoresAsModifiedZScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	special := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-310, math.MaxFloat64, -math.MaxFloat64, 1, 1, 2}
	flagged := 0
	for trial := range 3000 {
		n := 1 + rng.IntN(40)
		if trial%100 == 0 {
			n = 1 + rng.IntN(3000)
		}
		xs := make([]float64, n)
		mode := rng.IntN(4)
		for i := range xs {
			switch {
			case mode == 0 && rng.IntN(3) > 0:
				xs[i] = 7 // more than half equal: MAD 0
			case mode == 1:
				xs[i] = 3 // all equal
			case rng.IntN(4) == 0:
				xs[i] = special[rng.IntN(len(special))]
			case rng.IntN(3) == 0:
				xs[i] = float64(rng.IntN(5))
			default:
				xs[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
			}
		}
		z, err := ModifiedZScores(xs)
		if err != nil {
			t.Fatal(err)
		}
		sorted := Sorted(xs)
		before, sortedBefore := slices.Clone(xs), slices.Clone(sorted)
		for _, th := range []float64{OutlierThreshold, 1, 0, -1} {
			idx, hz, err := HighScores(xs, sorted, th)
			if err != nil {
				t.Fatal(err)
			}
			var wantIdx []int
			var wantZ []float64
			for i, zi := range z {
				if math.Abs(zi) > th {
					wantIdx, wantZ = append(wantIdx, i), append(wantZ, zi)
				}
			}
			if !slices.Equal(idx, wantIdx) {
				t.Fatalf("trial %d threshold %v: %v: flagged %v, ModifiedZScores %v", trial, th, xs, idx, wantIdx)
			}
			for j := range hz {
				if math.Float64bits(hz[j]) != math.Float64bits(wantZ[j]) && wantZ[j] != 0 {
					t.Fatalf("trial %d threshold %v: %v: score of %d %v, ModifiedZScores %v", trial, th, xs, idx[j], hz[j], wantZ[j])
				}
			}
			if th == OutlierThreshold {
				flagged += len(idx)
			}
		}
		if !slices.Equal(xs, before) || !slices.Equal(sorted, sortedBefore) {
			t.Fatalf("trial %d: HighScores changed its input", trial)
		}
		if m := MedianSorted(sorted); math.Float64bits(m) != math.Float64bits(Median(xs)) {
			t.Fatalf("trial %d: MedianSorted %v, Median %v", trial, m, Median(xs))
		}
	}
	if flagged < 1000 {
		t.Errorf("only %d values flagged in all trials: the samples test too little", flagged)
	}
	if _, _, err := HighScores([]float64{1, 2}, []float64{1}, OutlierThreshold); err == nil {
		t.Errorf("HighScores with a sorted sample of another length: no error")
	}
	if _, _, err := HighScores(nil, nil, OutlierThreshold); !errors.Is(err, ErrNoData) {
		t.Errorf("HighScores of no values: %v, want ErrNoData", err)
	}
	xs := make([]float64, 10000)
	for i := range xs {
		xs[i] = 1e6 + float64(i%977)
	}
	sorted := Sorted(xs)
	if a := testing.AllocsPerRun(5, func() { HighScores(xs, sorted, OutlierThreshold) }); a > 0 {
		t.Errorf("HighScores of a sample without outliers made %v allocations, want none", a)
	}
}
