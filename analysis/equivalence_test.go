package analysis

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// verdictsReference holds testdata/verdicts_reference.json, computed with
// SciPy by testdata/gen_verdicts.py. Regenerate from the repository root:
//
//	/usr/bin/python3 analysis/testdata/gen_verdicts.py > analysis/testdata/verdicts_reference.json
type verdictsReference struct {
	Equivalence []struct {
		A, B    []float64
		Margin  float64
		Verdict string
		Why     string
		Lo, Hi  float64
	}
	Drift []struct {
		X              []float64
		Alpha          float64
		Tested, Drifts bool
		Tau, P         float64
	}
}

func readVerdictsReference(t *testing.T) verdictsReference {
	t.Helper()
	b, err := os.ReadFile("testdata/verdicts_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref verdictsReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Equivalence) == 0 || len(ref.Drift) == 0 {
		t.Fatal("verdicts_reference.json holds no cases")
	}
	return ref
}

// TestEquivalenceReference checks Equivalence's verdict and 90% interval of
// the ratio against SciPy (brute-force exact Hodges–Lehmann ranks).
func TestEquivalenceReference(t *testing.T) {
	words := map[string]EquivalenceVerdict{"none": NoEquivalenceVerdict, "equivalent": Equivalent,
		"different": NotEquivalent, "not shown equivalent": NotShownEquivalent}
	for i, c := range readVerdictsReference(t).Equivalence {
		r := Equivalence(c.A, c.B, c.Margin)
		if want := words[c.Verdict]; r.Verdict != want {
			t.Errorf("case %d: verdict %d, want %s (%+v)", i, r.Verdict, c.Verdict, r)
			continue
		}
		if c.Verdict == "none" {
			if r.Why != c.Why {
				t.Errorf("case %d: no verdict because %q, want %q", i, r.Why, c.Why)
			}
			continue
		}
		if math.Abs(r.Lo-c.Lo) > 1e-9*c.Lo || math.Abs(r.Hi-c.Hi) > 1e-9*c.Hi {
			t.Errorf("case %d: interval [%.12g, %.12g], want [%.12g, %.12g]", i, r.Lo, r.Hi, c.Lo, c.Hi)
		}
	}
}

func TestEquivalenceNoVerdict(t *testing.T) {
	if r := Equivalence(nil, []float64{1, 2}, 0.05); r.Verdict != NoEquivalenceVerdict || r.Why != WhyNoData {
		t.Errorf("empty side: %+v", r)
	}
	if r := Equivalence([]float64{1, math.NaN(), 2}, []float64{1, 2, 3}, 0.05); r.Why != WhyInvalid || r.Err == nil {
		t.Errorf("NaN: %+v", r)
	}
	if r := Equivalence([]float64{0, 0, 0, 1, 2, 5}, []float64{0, 0, 1, 0, 0, 0}, 0.05); r.Why != WhyZeros {
		t.Errorf("counts with zeros: %+v", r)
	}
}

// TestDriftReference checks Drift's tau, p and decision against SciPy's
// Kendall tau-b with the Mann–Kendall continuity correction.
func TestDriftReference(t *testing.T) {
	for i, c := range readVerdictsReference(t).Drift {
		mk, tested, drifts := Drift(c.X, c.Alpha)
		if tested != c.Tested || drifts != c.Drifts {
			t.Errorf("case %d: tested %v drifts %v, want %v %v", i, tested, drifts, c.Tested, c.Drifts)
			continue
		}
		if !tested {
			continue
		}
		if math.Abs(mk.Tau-c.Tau) > 1e-12 || math.Abs(mk.P-c.P) > 1e-9*c.P+1e-15 {
			t.Errorf("case %d: tau %.15g p %.15g, want %.15g %.15g", i, mk.Tau, mk.P, c.Tau, c.P)
		}
	}
}

// TestPairedEquivalenceUnderDrift: the machine slows by half over the
// run while B stays 2% (±0.5%) above A within every round. The two
// samples' interval takes the drift for spread and cannot decide at ±5%;
// the rounds' interval is the 2%, inside the margin, and wholly outside
// ±1%.
func TestPairedEquivalenceUnderDrift(t *testing.T) {
	var a, b, d []float64
	for i := range 20 {
		x := 10 * (1 + 0.5*float64(i)/19)
		y := x * 1.02 * (1 + 0.005*float64((i*7)%5-2)/2)
		a, b, d = append(a, x), append(b, y), append(d, math.Log(y/x))
	}
	if r := Equivalence(a, b, 0.05); r.Verdict != NotShownEquivalent {
		t.Fatalf("the samples under drift: %+v, want not shown (the drift's spread)", r)
	}
	r := PairedEquivalence(d, 0.05)
	if r.Verdict != Equivalent || !(r.Lo > 1.01 && r.Hi < 1.03) || math.Abs(r.Ratio-1.02) > 0.003 {
		t.Errorf("the rounds at ±5%%: %+v, want equivalent, about 1.02", r)
	}
	if r := PairedEquivalence(d, 0.01); r.Verdict != NotEquivalent {
		t.Errorf("the rounds at ±1%%: %+v, want not equivalent", r)
	}
	if r := PairedEquivalence(d[:4], 0.05); r.Why != WhyTooFew {
		t.Errorf("4 rounds: %+v, want too few", r)
	}
	if r := PairedEquivalence(nil, 0.05); r.Why != WhyNoData {
		t.Errorf("no rounds: %+v", r)
	}
	if r := PairedEquivalence([]float64{0, math.Inf(1)}, 0.05); r.Why != WhyInvalid {
		t.Errorf("an infinite ratio: %+v", r)
	}
}
