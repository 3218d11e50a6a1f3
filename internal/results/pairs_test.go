package results

import (
	"math"
	"testing"
)

// pairsFile is an A/B file of one metric "t": each rep {config, round,
// status, value}, in file order.
func pairsFile(reps [][4]float64) *File {
	f := &File{Kind: "verify", Primary: "t", Metrics: []Metric{{Name: "t", Unit: "ns"}}, Configs: []Config{{Name: "a"}, {Name: "b"}}}
	for i, r := range reps {
		st := StatusOK
		if r[2] != 0 {
			st = StatusFailed
		}
		f.Reps = append(f.Reps, Rep{Index: i, Config: int(r[0]), Round: int(r[1]), Status: st, Metrics: ValuesOf(map[string]float64{"t": r[3]})})
	}
	return f
}

// TestPairDiffsAppendedSession: a second session appended to a file
// numbers its rounds from 0 again. Keyed by round number, its rounds
// replaced the first session's (3 pairs of 6, the first session's lost);
// each round is a pair of neighbours, so all 6 count, each within its
// session. A round whose side failed is left out and pairs with nothing.
func TestPairDiffsAppendedSession(t *testing.T) {
	f := pairsFile([][4]float64{
		{0, 0, 0, 10}, {1, 0, 0, 20}, {1, 1, 0, 30}, {0, 1, 0, 10}, {0, 2, 0, 10}, {1, 2, 0, 40},
		{0, 0, 0, 10}, {1, 0, 0, 50}, {1, 1, 0, 60}, {0, 1, 0, 10}, {0, 2, 0, 10}, {1, 2, 0, 70},
		{0, 0, 0, 10}, {1, 0, 1, 0}, // a third session's first round, its B failed
		{1, 0, 0, 80}, // ... and a fourth's B, next to it: not its pair
	})
	d, rel := f.PairDiffs("t")
	want := []float64{2, 3, 4, 5, 6, 7}
	if !rel || len(d) != len(want) {
		t.Fatalf("%d differences %v (rel %v), want ln of %v", len(d), d, rel, want)
	}
	for i, w := range want {
		if math.Abs(d[i]-math.Log(w)) > 1e-12 {
			t.Errorf("pair %d: %v, want ln %v", i, d[i], w)
		}
	}
}
