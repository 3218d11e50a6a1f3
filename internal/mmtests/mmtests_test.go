package mmtests

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"contend/analysis"
)

// TestSplitName checks the header's split of run names: at the first
// '-', an -rcN kept with the version.
func TestSplitName(t *testing.T) {
	for _, c := range []struct{ name, top, bottom string }{
		{"6.2.0-vanilla", "6.2.0", "vanilla"},
		{"6.2.0-rc3-vanilla", "6.2.0-rc3", "vanilla"},
		{"6.2.0-rc3-mm-reclaim-v1", "6.2.0-rc3", "mm-reclaim-v1"},
		{"6.10-rc12-x", "6.10-rc12", "x"},
		{"6.2.0-rc3", "6.2.0-rc3", ""},
		{"baseline", "", "baseline"},
		{"3.8.13-rt9-rtm", "3.8.13", "rt9-rtm"},
	} {
		if top, bottom := SplitName(c.name); top != c.top || bottom != c.bottom {
			t.Errorf("SplitName(%q) = %q, %q; want %q, %q", c.name, top, bottom, c.top, c.bottom)
		}
	}
}

// TestChangeSign checks mmtests' sign rule: positive is better, for a
// rate (higher better) and for a time (lower better), and its zeros.
func TestChangeSign(t *testing.T) {
	for _, c := range []struct {
		v, b   float64
		higher bool
		want   float64
	}{
		{110, 100, true, 10}, {90, 100, true, -10},
		{90, 100, false, 10}, {110, 100, false, -10},
		{100, 100, false, 0}, {0, 100, true, 0}, {5, 0, true, 100},
		{0, 100, false, 100}, {5, 0, false, -99},
	} {
		if got := Change(c.v, c.b, c.higher); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Change(%g, %g, higher %v) = %g, want %g", c.v, c.b, c.higher, got, c.want)
		}
	}
}

// TestStatsByHand checks Summarise against values worked by hand: the
// harmonic mean and mmtests' deviation around it, the n-1 deviation
// around the arithmetic mean, the best 95% of 20 values (19).
func TestStatsByHand(t *testing.T) {
	h := Summarise([]float64{1, 2, 4}, true)
	H := 3 / (1 + 0.5 + 0.25)
	d := math.Pow(1-1/H, 2) + math.Pow(0.5-1/H, 2) + math.Pow(0.25-1/H, 2)
	if math.Abs(h[StatMean]-H) > 1e-12 || math.Abs(h[StatStddev]-math.Sqrt(d*math.Pow(H, 4)/3)) > 1e-12 || h[StatMin] != 1 || h[StatMax] != 4 {
		t.Errorf("Hmean stats of 1, 2, 4: %v", h)
	}
	var x []float64
	for i := 1; i <= 20; i++ {
		x = append(x, float64(i))
	}
	a := Summarise(x, false)
	if a[StatMean] != 10.5 || math.Abs(a[StatStddev]-math.Sqrt(35)) > 1e-12 || a[StatBestMean] != 10 {
		t.Errorf("Amean stats of 1..20: %v", a)
	}
	if s := Summarise([]float64{3}, false); !math.IsNaN(s[StatStddev]) || s[StatCoeffVar] != 0 {
		t.Errorf("one value: %v", s)
	}
}

// TestStarRules simulates a shift of one standard deviation at 15
// iterations a side (normal values): mmtests' band rule (the bands mean ±
// 1.96·SD of single values do not overlap) almost never stars it, while
// contend's test (Mann-Whitney U at 5%) finds it most of the time; with
// no shift the test's false stars stay near its level.
func TestStarRules(t *testing.T) {
	const sims, n = 400, 15
	rng := rand.New(rand.NewPCG(41, 2))
	draw := func(mu float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 100 + 5*(mu+rng.NormFloat64())
		}
		return x
	}
	rate := func(shift float64) (band, test float64) {
		for range sims {
			a, b := draw(0), draw(shift)
			if BandsApart(Summarise(a, false), Summarise(b, false)) {
				band++
			}
			c, err := analysis.Compare(a, b, analysis.CompareOptions{Alpha: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			if c.P < 0.05 {
				test++
			}
		}
		return band / sims, test / sims
	}
	band, test := rate(1)
	t.Logf("1-SD shift, %d a side: band rule %.1f%%, Mann-Whitney %.1f%%", n, 100*band, 100*test)
	if band > 0.02 || test < 0.6 {
		t.Errorf("1-SD shift: band rule stars %.1f%%, contend's test %.1f%%; want about 0%% and about 75%%", 100*band, 100*test)
	}
	band, test = rate(4)
	if band < 0.3 || test < 0.99 {
		t.Errorf("4-SD shift: band rule %.1f%%, test %.1f%%", 100*band, 100*test)
	}
	_, test = rate(0)
	if test > 0.09 {
		t.Errorf("no shift: contend's test stars %.1f%%, want about 5%%", 100*test)
	}
}

// TestWriteStarAndBaseline checks the cells: the baseline's (   0.00%),
// the star in place of the parentheses on the mean row only, the widths.
func TestWriteStarAndBaseline(t *testing.T) {
	tb := Table{Names: []string{"6.1-base", "6.1-patched"}, Rows: []Row{{Op: "ops", Higher: true, Precision: 2,
		Values: [][]float64{{100, 101, 99}, {120, 121, 119}}, Star: []bool{false, true}}}, Footer: []string{"note"}}
	var b bytes.Buffer
	if err := Write(&b, tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 2+6+3 || lines[9] != "note" {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if want := "Hmean     ops             99.99 (   0.00%)            119.99 *  20.00%*"; lines[3] != want {
		t.Errorf("mean row\n got %q\nwant %q", lines[3], want)
	}
	if strings.Count(b.String(), "*") != 2 {
		t.Errorf("stars outside the mean row:\n%s", b.String())
	}
	if len(lines[0]) != len(lines[2]) || !strings.HasSuffix(lines[0], "6.1") || !strings.HasSuffix(lines[1], "patched") {
		t.Errorf("header not over its columns:\n%s", b.String())
	}
}
