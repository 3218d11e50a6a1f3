package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// metaReference holds testdata/meta_reference.json, written by
// testdata/gen_meta.py with statsmodels' combine_effects.
type metaReference struct {
	Cases []struct {
		Hosts           [][2][]float64
		Y, V            []float64
		Estimate        float64
		SEDL            float64 `json:"se_dl"`
		SEHK            float64 `json:"se_hk"`
		Fixed           float64
		Tau2, Q, QP, I2 float64
		Lo, Hi, P       float64
	}
	Welch []struct {
		Groups   [][]float64
		F, P     float64
		DF1, DF2 float64
	}
}

func TestRandomEffectsReference(t *testing.T) {
	b, err := os.ReadFile("testdata/meta_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref metaReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 5 {
		t.Fatalf("%d reference cases", len(ref.Cases))
	}
	for ci, c := range ref.Cases {
		var es []Effect
		for hi, h := range c.Hosts {
			e, ok := LogRatioEffect(h[0], h[1])
			if !ok {
				t.Fatalf("case %d host %d: no effect", ci, hi)
			}
			name := fmt.Sprintf("case %d host %d ", ci, hi)
			checkClose(t, name+"Y", e.Y, c.Y[hi], 1e-9, 1e-12)
			checkClose(t, name+"V", e.V, c.V[hi], 1e-9, 0)
			es = append(es, e)
		}
		r, err := RandomEffects(es, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("case %d ", ci)
		checkClose(t, name+"Estimate", r.Estimate, c.Estimate, 1e-9, 1e-12)
		checkClose(t, name+"SEDL", r.SEDL, c.SEDL, 1e-9, 0)
		checkClose(t, name+"SEHK", r.SEHK, c.SEHK, 1e-9, 0)
		checkClose(t, name+"Fixed", r.FixedEstimate, c.Fixed, 1e-9, 1e-12)
		checkClose(t, name+"Tau2", r.Tau2, c.Tau2, 1e-8, 1e-15)
		checkClose(t, name+"Q", r.Q, c.Q, 1e-9, 0)
		checkClose(t, name+"QP", r.QP, c.QP, 1e-7, 1e-15)
		checkClose(t, name+"I2", r.I2, c.I2, 1e-9, 1e-12)
		checkClose(t, name+"Lo", r.Lo, c.Lo, 1e-9, 1e-12)
		checkClose(t, name+"Hi", r.Hi, c.Hi, 1e-9, 1e-12)
		checkClose(t, name+"P", r.P, c.P, 1e-7, 1e-15)
		if r.K != len(c.Hosts) || r.DF != float64(r.K-1) || r.SE != math.Max(r.SEDL, r.SEHK) {
			t.Errorf("%sK %d DF %v SE %v", name, r.K, r.DF, r.SE)
		}
	}
	if len(ref.Welch) < 3 {
		t.Fatalf("%d Welch cases", len(ref.Welch))
	}
	for ci, c := range ref.Welch {
		var es []Effect
		for _, g := range c.Groups {
			m, v := stat.MeanVariance(g, nil)
			n := float64(len(g))
			es = append(es, Effect{Y: m, V: v / n, DF: n - 1})
		}
		r, err := RandomEffects(es, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Welch case %d ", ci)
		checkClose(t, name+"F", r.HetF, c.F, 1e-9, 0)
		checkClose(t, name+"P", r.HetP, c.P, 1e-7, 1e-15)
		checkClose(t, name+"DF1", r.HetDF1, c.DF1, 0, 0)
		checkClose(t, name+"DF2", r.HetDF2, c.DF2, 1e-9, 0)
	}
	// Without degrees of freedom the test is Cochran's Q.
	r, _ := RandomEffects([]Effect{{Y: 0, V: 1}, {Y: 3, V: 1}}, 0.95)
	if r.HetP != r.QP || !math.IsNaN(r.HetF) {
		t.Errorf("no DF: HetP %v, QP %v, HetF %v", r.HetP, r.QP, r.HetF)
	}
}

func TestRandomEffectsRefuses(t *testing.T) {
	if _, err := RandomEffects([]Effect{{Y: 0.1, V: 0.01}}, 0.95); !errors.Is(err, ErrNoData) {
		t.Errorf("one host: %v, want ErrNoData", err)
	}
	for _, bad := range []Effect{{Y: math.NaN(), V: 0.01}, {Y: 0.1}, {Y: 0.1, V: math.Inf(1)}, {Y: math.Inf(-1), V: 1}} {
		if _, err := RandomEffects([]Effect{{Y: 0, V: 0.01}, bad}, 0.95); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if !panics(func() { RandomEffects([]Effect{{Y: 0, V: 1}, {Y: 0, V: 1}}, 1) }) {
		t.Error("confidence 1 accepted")
	}
	for _, c := range []struct{ a, b []float64 }{
		{[]float64{1}, []float64{1, 2}},
		{[]float64{1, 2}, []float64{0, 2}},
		{[]float64{1, 1}, []float64{2, 2}},
		{[]float64{1, -2}, []float64{2, 3}},
	} {
		if _, ok := LogRatioEffect(c.a, c.b); ok {
			t.Errorf("LogRatioEffect(%v, %v) accepted", c.a, c.b)
		}
	}
}

// simFleet draws k hosts of n runs a side, log-normal with run SD sd;
// host i's true log change is shift + a host effect of SD tau.
func simFleet(rng *rand.Rand, k, n int, sd, shift, tau float64) []Effect {
	es := make([]Effect, 0, k)
	for len(es) < k {
		u := shift + tau*rng.NormFloat64()
		a, b := make([]float64, n), make([]float64, n)
		base := rng.NormFloat64() * 0.3 // hosts differ in speed, not in change
		for j := range a {
			a[j] = math.Exp(base + sd*rng.NormFloat64())
			b[j] = math.Exp(base + u + sd*rng.NormFloat64())
		}
		if e, ok := LogRatioEffect(a, b); ok {
			es = append(es, e)
		}
	}
	return es
}

// TestMetaAASimulation: fleets with no change anywhere reject "no change"
// at most alpha of the time (the interval covers 0 at least 95% of the
// time), for few and many hosts, also when the hosts' own changes
// scatter around 0 (τ > 0); plain DerSimonian-Laird with normal quantiles
// does not (shown for 3 scattered hosts), which is why it is not used.
func TestMetaAASimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	const sims = 2000
	// 3 SEs of a binomial rate at 5% over 2000 draws.
	limit := 0.05 + 3*math.Sqrt(0.05*0.95/sims)
	for _, tau := range []float64{0, 0.03} {
		for _, k := range []int{2, 3, 5, 8} {
			rej, rejDL, cover := 0, 0, 0
			for s := 0; s < sims; s++ {
				r, err := RandomEffects(simFleet(rng, k, 6, 0.03, 0, tau), 0.95)
				if err != nil {
					t.Fatal(err)
				}
				if r.P < 0.05 {
					rej++
				}
				if r.Lo <= 0 && 0 <= r.Hi {
					cover++
				}
				if math.Abs(r.Estimate/r.SEDL) > 1.959963984540054 {
					rejDL++
				}
			}
			rate, rateDL := float64(rej)/sims, float64(rejDL)/sims
			t.Logf("A/A, %d hosts x 6+6 runs, host SD %.2f: rejected %.1f%% (DerSimonian-Laird with z: %.1f%%)", k, tau, 100*rate, 100*rateDL)
			if rate > limit || rej+cover != sims {
				t.Errorf("A/A fleets of %d hosts, host SD %.2f: rejected %.1f%% > %.1f%%, or the interval disagrees with p (%d + %d of %d)",
					k, tau, 100*rate, 100*limit, rej, cover, sims)
			}
			if k == 3 && tau > 0 && rateDL < 2*limit {
				t.Errorf("plain DerSimonian-Laird rejected only %.1f%% for 3 scattered hosts: the reason given for not using it is gone", 100*rateDL)
			}
		}
	}
}

// TestMetaFindsChangeAndHeterogeneity: a common +5% change on 5 hosts is
// found; hosts whose change differs (SD 5% between hosts, runs SD 1%)
// show in the heterogeneity test and I²; homogeneous fleets reject
// homogeneity at most alpha of the time (Welch's test; Cochran's χ² test
// with estimated variances does not, which is why HetP is Welch's).
func TestMetaFindsChangeAndHeterogeneity(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	const sims = 1000
	found, het, hetAA, cochranAA := 0, 0, 0, 0
	var i2 float64
	for s := 0; s < sims; s++ {
		r, _ := RandomEffects(simFleet(rng, 5, 8, 0.03, math.Log(1.05), 0), 0.95)
		if r.P < 0.05 && r.Estimate > 0 {
			found++
		}
		if r.HetP < 0.05 {
			hetAA++
		}
		if r.QP < 0.05 {
			cochranAA++
		}
		h, _ := RandomEffects(simFleet(rng, 5, 8, 0.01, 0, 0.05), 0.95)
		if h.HetP < 0.05 {
			het++
		}
		i2 += h.I2
	}
	t.Logf("+5%% on 5 hosts: found %d of %d; heterogeneous fleets: Q rejects %d of %d, mean I² %.2f; homogeneous: Welch rejects %d, Cochran's χ² %d", found, sims, het, sims, i2/sims, hetAA, cochranAA)
	if found < sims*9/10 {
		t.Errorf("+5%% change found in %d of %d fleets", found, sims)
	}
	if het < sims*9/10 || i2/sims < 0.8 {
		t.Errorf("heterogeneous fleets: Q rejects %d of %d, mean I² %.2f", het, sims, i2/sims)
	}
	if float64(hetAA)/sims > 0.05+3*math.Sqrt(0.05*0.95/sims) {
		t.Errorf("homogeneous fleets: the heterogeneity test rejects %d of %d", hetAA, sims)
	}
	if float64(cochranAA)/sims < 0.05+3*math.Sqrt(0.05*0.95/sims) {
		t.Errorf("Cochran's χ² test rejected homogeneous fleets only %d of %d times: the reason given for Welch's is gone", cochranAA, sims)
	}
}
