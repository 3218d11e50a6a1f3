package analysis

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// reference holds testdata/reference.json, values computed with SciPy and
// NumPy by testdata/gen_reference.py. Regenerate from the repository root
// with:
//
//	/usr/bin/python3 analysis/testdata/gen_reference.py > analysis/testdata/reference.json
type reference struct {
	SciPy       string `json:"scipy"`
	MannWhitney []struct {
		A, B        []float64
		Alternative string
		Method      string
		Ties        bool
		U, P        float64
	}
	Welch []struct {
		A, B               []float64
		Alternative        string
		Confidence         float64
		T, DF, P, Diff, SE float64
		Lo, Hi             float64
	}
	Summary []struct {
		X                    []float64
		Q1, Median, Q3, Mean float64
		StdDev               float64
		MedianCI             map[string]struct {
			OK               bool
			Lo, Hi, Coverage float64
		} `json:"median_ci"`
	}
	HodgesLehmann []struct {
		A, B             []float64
		Confidence       float64
		Shift            float64
		OK               bool
		Lo, Hi, Coverage float64
		RelEstimate      *float64 `json:"rel_estimate"`
		RelLo            *float64 `json:"rel_lo"`
		RelHi            *float64 `json:"rel_hi"`
		RelChange        *float64 `json:"rel_change"`
	} `json:"hodges_lehmann"`
	HLZeros []struct {
		A, B             []float64
		Confidence       float64
		Shift            float64
		OK               bool
		Lo, Hi, Coverage float64
		MedianA          float64  `json:"median_a"`
		RelEstimate      *float64 `json:"rel_estimate"`
		RelChange        *float64 `json:"rel_change"`
	} `json:"hl_zeros"`
	Trend []struct {
		X            []float64
		S, Z         float64
		VarS         float64 `json:"var_s"`
		MKP          float64 `json:"mk_p"`
		TauB         float64 `json:"tau_b"`
		KendallPNoCC float64 `json:"kendall_p_no_cc"`
		Rho          float64
		SpearmanP    float64 `json:"spearman_p"`
	}
	CliffsDelta []struct {
		A, B  []float64
		Delta float64
	} `json:"cliffs_delta"`
	Holm []struct {
		P, Adjusted []float64
	}
	MinP []struct {
		N1, N2   int
		TwoSided float64 `json:"two_sided"`
	} `json:"min_p"`
}

func loadReference(t *testing.T) *reference {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.MannWhitney) == 0 || len(ref.Summary) == 0 {
		t.Fatal("testdata/reference.json has no cases")
	}
	return &ref
}

func parseAlternative(t *testing.T, s string) Alternative {
	switch s {
	case "two-sided":
		return TwoSided
	case "less":
		return Less
	case "greater":
		return Greater
	}
	t.Fatalf("unknown alternative %q", s)
	return 0
}

// Tolerances: exact values (order statistics, exact distributions) agree to
// rounding; values through special functions (normal, t) to 1e-9 relative,
// looser than the 1e-14 the implementations reach, as different libraries
// compute them.
const (
	tolExact  = 1e-9
	tolApprox = 1e-6
)

func TestReferenceMannWhitney(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.MannWhitney {
		method, tol := MWExact, tolExact
		if c.Method == "asymptotic" {
			method, tol = MWNormal, tolApprox
		}
		alt := parseAlternative(t, c.Alternative)
		got, err := MannWhitneyMethod(c.A, c.B, alt, method)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got.U != c.U || got.Ties != c.Ties || got.Method != method {
			t.Errorf("case %d (%d+%d %s %s): U %v ties %v method %v, want %v %v %v",
				i, len(c.A), len(c.B), c.Method, c.Alternative, got.U, got.Ties, got.Method, c.U, c.Ties, method)
		}
		checkClose(t, "MannWhitney case "+strconv.Itoa(i)+" P", got.P, c.P, tol, 1e-300)
		// MWAuto uses the exact method exactly when allowed.
		auto, _ := MannWhitney(c.A, c.B, alt)
		if want := !c.Ties && len(c.A)*len(c.B) <= 2500; (auto.Method == MWExact) != want {
			t.Errorf("case %d: auto method %v", i, auto.Method)
		}
	}
}

func TestReferenceMinP(t *testing.T) {
	ref := loadReference(t)
	for _, c := range ref.MinP {
		checkClose(t, "MannWhitneyMinP", MannWhitneyMinP(c.N1, c.N2, TwoSided), c.TwoSided, tolExact, 0)
	}
}

func TestReferenceWelch(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.Welch {
		got, err := Welch(c.A, c.B, parseAlternative(t, c.Alternative), c.Confidence)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		name := "Welch case " + strconv.Itoa(i) + " "
		checkClose(t, name+"T", got.T, c.T, 1e-12, 1e-12)
		checkClose(t, name+"DF", got.DF, c.DF, 1e-12, 0)
		checkClose(t, name+"Diff", got.Diff, c.Diff, 1e-12, 1e-12)
		checkClose(t, name+"SE", got.SE, c.SE, 1e-12, 0)
		checkClose(t, name+"P", got.P, c.P, tolApprox, 1e-300)
		checkClose(t, name+"Lo", got.Lo, c.Lo, tolApprox, 1e-9)
		checkClose(t, name+"Hi", got.Hi, c.Hi, tolApprox, 1e-9)
	}
}

func TestReferenceSummary(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.Summary {
		name := "Summary case " + strconv.Itoa(i) + " "
		for conf, want := range c.MedianCI {
			cf, _ := strconv.ParseFloat(conf, 64)
			s, err := Summarize(c.X, cf)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, name+"Q1", s.Q1, c.Q1, 1e-12, 1e-12)
			checkClose(t, name+"Median", s.Median, c.Median, 1e-12, 1e-12)
			checkClose(t, name+"Q3", s.Q3, c.Q3, 1e-12, 1e-12)
			checkClose(t, name+"Mean", s.Mean, c.Mean, 1e-12, 1e-12)
			checkClose(t, name+"StdDev", s.StdDev, c.StdDev, 1e-10, 1e-12)
			if s.HasCI != want.OK {
				t.Errorf("%s at %s: HasCI %v, want %v", name, conf, s.HasCI, want.OK)
				continue
			}
			checkClose(t, name+"Coverage", s.Coverage, want.Coverage, tolExact, 1e-15)
			if want.OK && (s.MedianLo != want.Lo || s.MedianHi != want.Hi) {
				t.Errorf("%s at %s: median CI [%v, %v], want [%v, %v]", name, conf, s.MedianLo, s.MedianHi, want.Lo, want.Hi)
			}
		}
	}
}

func TestReferenceHodgesLehmann(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.HodgesLehmann {
		name := "HodgesLehmann case " + strconv.Itoa(i) + " "
		got, err := HodgesLehmann(c.A, c.B, c.Confidence)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, name+"Shift", got.Shift, c.Shift, 1e-12, 1e-12)
		if got.HasCI != c.OK {
			t.Errorf("%s HasCI %v, want %v", name, got.HasCI, c.OK)
			continue
		}
		checkClose(t, name+"Coverage", got.Coverage, c.Coverage, tolExact, 1e-15)
		if c.OK {
			checkClose(t, name+"Lo", got.Lo, c.Lo, 1e-12, 1e-12)
			checkClose(t, name+"Hi", got.Hi, c.Hi, 1e-12, 1e-12)
		}
		if c.RelEstimate == nil {
			continue
		}
		rel, err := RelativeChange(c.A, c.B, c.Confidence)
		if err != nil {
			t.Fatal(err)
		}
		if rel.Method != RelLogShift {
			t.Errorf("%s relative method %v", name, rel.Method)
		}
		checkClose(t, name+"rel Change", rel.Change, *c.RelChange, 1e-12, 1e-12)
		checkClose(t, name+"rel Estimate", rel.Estimate, *c.RelEstimate, 1e-9, 1e-12)
		if c.RelLo != nil {
			checkClose(t, name+"rel Lo", rel.Lo, *c.RelLo, 1e-9, 1e-12)
			checkClose(t, name+"rel Hi", rel.Hi, *c.RelHi, 1e-9, 1e-12)
		}
	}
}

// TestReferenceHLZeros: for values >= 0 with zeros, RelativeChange gives
// the interval of the shift B-A itself (the Hodges-Lehmann interval SciPy's
// enumeration gives), no interval of a ratio, and the estimate
// shift/median(A), which is >= -1.
func TestReferenceHLZeros(t *testing.T) {
	ref := loadReference(t)
	if len(ref.HLZeros) == 0 {
		t.Fatal("testdata/reference.json has no hl_zeros cases")
	}
	for i, c := range ref.HLZeros {
		name := "hl_zeros case " + strconv.Itoa(i) + " "
		rel, err := RelativeChange(c.A, c.B, c.Confidence)
		if err != nil {
			t.Fatal(err)
		}
		if rel.Method != RelAbsShift || rel.HasCI || !math.IsNaN(rel.Lo) || !math.IsNaN(rel.Hi) {
			t.Errorf("%s method %v, ratio interval %v [%v, %v]", name, rel.Method, rel.HasCI, rel.Lo, rel.Hi)
		}
		checkClose(t, name+"Shift", rel.Shift, c.Shift, 1e-12, 1e-12)
		if rel.HasShiftCI != c.OK {
			t.Errorf("%s HasShiftCI %v, want %v", name, rel.HasShiftCI, c.OK)
			continue
		}
		checkClose(t, name+"Coverage", rel.Coverage, c.Coverage, tolExact, 1e-15)
		if c.OK {
			checkClose(t, name+"ShiftLo", rel.ShiftLo, c.Lo, 1e-12, 1e-12)
			checkClose(t, name+"ShiftHi", rel.ShiftHi, c.Hi, 1e-12, 1e-12)
		}
		if c.RelEstimate == nil {
			if !math.IsNaN(rel.Estimate) {
				t.Errorf("%s median(A) 0, estimate %v", name, rel.Estimate)
			}
			continue
		}
		checkClose(t, name+"Estimate", rel.Estimate, *c.RelEstimate, 1e-12, 1e-12)
		checkClose(t, name+"Change", rel.Change, *c.RelChange, 1e-12, 1e-12)
		if rel.Estimate < -1 {
			t.Errorf("%s estimate %v below -100%%", name, rel.Estimate)
		}
	}
}

func TestReferenceTrend(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.Trend {
		name := "Trend case " + strconv.Itoa(i) + " "
		mk, err := MannKendall(c.X)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, name+"S", mk.S, c.S, 0, 0)
		checkClose(t, name+"VarS", mk.VarS, c.VarS, 1e-12, 0)
		checkClose(t, name+"Z", mk.Z, c.Z, 1e-12, 1e-12)
		checkClose(t, name+"P", mk.P, c.MKP, tolApprox, 1e-300)
		checkClose(t, name+"Tau", mk.Tau, c.TauB, 1e-12, 1e-12)
		// Without the continuity correction the p-value is SciPy's.
		checkClose(t, name+"P without continuity", 2*normalSF(abs(mk.S)/sqrt(mk.VarS)), c.KendallPNoCC, tolApprox, 1e-300)

		sp, err := Spearman(c.X)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, name+"Rho", sp.Rho, c.Rho, 1e-12, 1e-12)
		checkClose(t, name+"Spearman P", sp.P, c.SpearmanP, tolApprox, 1e-300)
	}
}

func TestReferenceCliffsDelta(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.CliffsDelta {
		got, err := CliffsDelta(c.A, c.B)
		if err != nil {
			t.Fatal(err)
		}
		checkClose(t, "CliffsDelta case "+strconv.Itoa(i), got, c.Delta, 1e-14, 1e-15)
	}
}

func TestReferenceHolm(t *testing.T) {
	ref := loadReference(t)
	for i, c := range ref.Holm {
		got, err := Holm(c.P)
		if err != nil {
			t.Fatal(err)
		}
		for j := range got {
			checkClose(t, "Holm case "+strconv.Itoa(i), got[j], c.Adjusted[j], 1e-14, 1e-15)
		}
	}
}
