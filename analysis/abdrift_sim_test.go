package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"contend/internal/testsize"
)

// abDriftScenario is a machine that changes while an A/A run takes 2n
// runs: the level (in noise SDs) at run t.
type abDriftScenario struct {
	name  string
	level func(t, runs int) float64
}

var abDriftScenarios = []abDriftScenario{
	{"stationary", func(int, int) float64 { return 0 }},
	{"drift +1 SD over the run", func(t, runs int) float64 { return float64(t) / float64(runs-1) }},
	{"drift -1 SD over the run", func(t, runs int) float64 { return -float64(t) / float64(runs-1) }},
	{"switching 1 SD every run", func(t, _ int) float64 { return float64(t % 2) }},
	{"switching 1 SD every 3 runs", func(t, _ int) float64 { return float64((t / 3) % 2) }},
	{"bursts of 3 SD, 3 runs on, 3 off", func(t, _ int) float64 { return 3 * float64((t/3)%2) }},
	{"switching 1 SD every 2 runs, from run 1", func(t, _ int) float64 { return float64(((t + 1) / 2) % 2) }},
}

// abOrderSides returns the side (0 A, 1 B) of each of 2n runs: ab, abba
// or random (each pair in a random order), as internal/ab's orders.
func abOrderSides(order string, n int, rng *rand.Rand) []int {
	s := make([]int, 0, 2*n)
	for i := 0; i < n; i++ {
		swap := (order == "abba" && i%2 == 1) || (order == "random" && rng.IntN(2) == 1)
		if swap {
			s = append(s, 1, 0)
		} else {
			s = append(s, 0, 1)
		}
	}
	return s
}

// abDriftRates simulates sims A/A runs of n pairs in order under sc (unit
// noise) and returns the false-positive rates at alpha of the unpaired
// Mann-Whitney test on the sides, of the signed-rank test on the pairs'
// differences (B - A within each pair), and of the sequential design of
// ab --until (seq: its looks from 5 pairs to n, stopping only when it
// decides a difference).
func abDriftRates(sc abDriftScenario, order string, n, sims int, alpha float64, seed uint64, seq *Sequential) (mw, paired, sequential float64) {
	rng := rand.New(rand.NewPCG(seed, 38))
	var fpMW, fpSR, fpSeq int
	for range sims {
		sides := abOrderSides(order, n, rng)
		var a, b, d []float64
		for i := 0; i < n; i++ {
			var v [2]float64
			for k := 0; k < 2; k++ {
				t := 2*i + k
				v[sides[t]] = 100 + rng.NormFloat64() + sc.level(t, 2*n)
			}
			a, b, d = append(a, v[0]), append(b, v[1]), append(d, v[1]-v[0])
		}
		if r, err := MannWhitney(a, b, TwoSided); err == nil && r.P <= alpha {
			fpMW++
		}
		if r, err := SignedRank(d); err == nil && r.P <= alpha {
			fpSR++
		}
		for k := seq.MinRuns; k <= n; k++ {
			if dec, err := seq.Decide(k, a[:k], b[:k]); err == nil && dec.Significant {
				fpSeq++
				break
			}
		}
	}
	f := float64(sims)
	return float64(fpMW) / f, float64(fpSR) / f, float64(fpSeq) / f
}

// TestABDriftAA measures the A/A false-positive rate of an A/B run's
// tests while the machine changes (issue 38): a level drifting by 1 SD
// over the run, a level switching every run or every few runs, bursts.
// Bounds (alpha 0.05, n 20 pairs; the bound is alpha plus three Monte
// Carlo standard errors):
//
//   - --order random with the signed-rank test on the pairs holds alpha
//     in every scenario: the sides are assigned at random within each
//     pair, so with no effect each difference's sign is a fair coin
//     whatever the machine did (a randomization test);
//   - the unpaired U test holds it under linear drift in every order
//     (drift widens both sides alike), and so does the sequential design
//     of ab --until (its looks at 5..20 pairs);
//   - a deterministic order cannot be rescued by any analysis when the
//     load switches in step with it: a level switching every run puts
//     it on every B of order ab, and both tests then call the A/A a
//     change in most runs; abba is in step with a level switching every
//     2 runs from run 1.
//
// The runs per cell are 100 (200 at the full size, internal/testsize),
// the bound recomputed for them; CONTEND_ABDRIFT_SIMS sets them (4000
// for the figures in docs/ab-until.md); -v prints the table.
func TestABDriftAA(t *testing.T) {
	sims := testsize.Pick(100, 200)
	if s, _ := strconv.Atoi(os.Getenv("CONTEND_ABDRIFT_SIMS")); s > 0 {
		sims = s
	}
	const n, alpha = 20, 0.05
	bound := alpha + 3*math.Sqrt(alpha*(1-alpha)/float64(sims))
	seq, err := NewSequential(alpha, 5, n, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("A/A false positives at alpha %g, %d pairs, %d runs per cell: unpaired U test / signed-rank on the pairs / sequential U test (5..%d pairs)", alpha, n, sims, n)
	for si, sc := range abDriftScenarios {
		row := fmt.Sprintf("%-42s", sc.name)
		for oi, order := range []string{"ab", "abba", "random"} {
			mw, sr, sq := abDriftRates(sc, order, n, sims, alpha, uint64(100*si+oi+1), seq)
			row += fmt.Sprintf("  %s %4.1f%% / %4.1f%% / %4.1f%%", order, 100*mw, 100*sr, 100*sq)
			switch {
			case order == "random" && sr > bound:
				t.Errorf("%s, order random: the signed-rank test on the pairs calls %.1f%% of A/A runs a change, above %.1f%%", sc.name, 100*sr, 100*bound)
			case si <= 2 && (mw > bound || sq > bound):
				t.Errorf("%s, order %s: the U test calls %.1f%% of A/A runs a change, the sequential design %.1f%%, above %.1f%%", sc.name, order, 100*mw, 100*sq, 100*bound)
			case (sc.name == "switching 1 SD every run" && order == "ab") || (sc.name == "switching 1 SD every 2 runs, from run 1" && order == "abba"):
				if mw < 0.3 || sr < 0.3 || sq < 0.3 {
					t.Errorf("%s, order %s: U test %.1f%%, signed rank %.1f%%, sequential %.1f%%: a load in step with the order should fool each (above 30%%)", sc.name, order, 100*mw, 100*sr, 100*sq)
				}
			}
		}
		t.Log(row)
	}
}
