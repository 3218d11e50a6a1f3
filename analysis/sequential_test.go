package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNewSequential(t *testing.T) {
	s, err := NewSequential(0.05, 5, 30, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	// 5+5 runs: the smallest p-value 2/C(10,5) = 0.0079 is within the
	// Pocock-type budget 0.048·ln(1+(e-1)/6) = 0.012 of the first look.
	if s.FirstTest != 5 {
		t.Errorf("FirstTest = %d, want 5", s.FirstTest)
	}
	checkClose(t, "Levels[5]", s.Levels[5], 2.0/252, 1e-12, 0)
	for n := 0; n < 5; n++ {
		if s.Levels[n] != 0 || s.Spent[n] != 0 {
			t.Errorf("look %d before MinRuns: level %g, spent %g", n, s.Levels[n], s.Spent[n])
		}
	}
	for n := 5; n <= 30; n++ {
		budget := SpendPocock.Spent(0.05, float64(n)/30)
		if s.Spent[n] > budget || s.Spent[n] < s.Spent[n-1] {
			t.Errorf("look %d: spent %g, budget %g, before %g", n, s.Spent[n], budget, s.Spent[n-1])
		}
		if s.Levels[n] > budget {
			t.Errorf("look %d: level %g above the budget %g", n, s.Levels[n], budget)
		}
	}
	if !(s.Spent[30] > 0.045 && s.Spent[30] <= 0.05) {
		t.Errorf("designed false-positive rate %g, want in (0.045, 0.05]", s.Spent[30])
	}
	// The same design gives the same boundaries (fixed seed), also when
	// computed afresh.
	seqCache.Lock()
	seqCache.m = nil
	seqCache.Unlock()
	s2, _ := NewSequential(0.05, 5, 30, 0)
	for n := range s.Levels {
		if s.Levels[n] != s2.Levels[n] {
			t.Fatalf("look %d: level %g then %g", n, s.Levels[n], s2.Levels[n])
		}
	}
	// O'Brien-Fleming-type spending saves its error for the late looks.
	ob, err := NewSequentialSpending(0.05, 5, 30, 0, SpendOBrienFleming)
	if err != nil {
		t.Fatal(err)
	}
	if ob.FirstTest <= s.FirstTest || ob.Levels[30] <= s.Levels[30] {
		t.Errorf("O'Brien-Fleming-type: first test %d, last level %g; Pocock-type %d, %g", ob.FirstTest, ob.Levels[30], s.FirstTest, s.Levels[30])
	}
	s, _ = NewSequential(0.05, 10, 10, 0)
	if s.FirstTest != 10 || !(s.Levels[10] > 0.04 && s.Levels[10] <= 0.05) {
		t.Errorf("single look: first %d level %g", s.FirstTest, s.Levels[10])
	}
	for _, bad := range []struct {
		alpha      float64
		minR, maxR int
		until      float64
	}{{0, 5, 10, 0}, {1, 5, 10, 0}, {0.05, 0, 10, 0}, {0.05, 5, 4, 0}, {0.05, 5, 10, -1}, {0.05, 2, 3, 0}, {0.05, 5, SequentialMaxRuns + 1, 0}} {
		if _, err := NewSequential(bad.alpha, bad.minR, bad.maxR, bad.until); err == nil {
			t.Errorf("NewSequential(%v) accepted", bad)
		}
	}
}

func TestSpending(t *testing.T) {
	for _, sp := range []Spending{SpendPocock, SpendOBrienFleming} {
		if sp.Spent(0.05, 0) != 0 || sp.Spent(0.05, 1) != 0.05 {
			t.Errorf("%v: ends %g %g", sp, sp.Spent(0.05, 0), sp.Spent(0.05, 1))
		}
	}
	// Pocock-type at t = 0.5: 0.05·ln(1+(e-1)/2).
	checkClose(t, "Pocock(0.5)", SpendPocock.Spent(0.05, 0.5), 0.05*math.Log(1+(math.E-1)/2), 1e-15, 0)
	// O'Brien-Fleming-type at t = 0.25: 2-2Φ(1.959964/0.5) = 8.87e-5.
	checkClose(t, "OBF(0.25)", SpendOBrienFleming.Spent(0.05, 0.25), 8.8574e-5, 0, 1e-3)
}

func TestSequentialDecide(t *testing.T) {
	s, _ := NewSequential(0.05, 3, 20, 0)
	d, err := s.Decide(2, []float64{1, 2}, []float64{1, 2})
	if err != nil || d.Stop || !strings.Contains(d.Reason, "at least 3") {
		t.Errorf("before MinRuns: %+v %v", d, err)
	}
	a := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 100.3, 99.7}
	b := []float64{110, 111, 109, 110.5, 109.5, 110.2, 109.8, 110.1, 110.3, 109.7}
	var stopped int
	for n := 1; n <= len(a); n++ {
		d, _ = s.Decide(n, a[:n], b[:n])
		if d.Stop {
			stopped = n
			break
		}
	}
	if stopped == 0 || !d.Significant || !(d.Lo > 0.05 && d.Hi < 0.15) || d.P > d.NominalAlpha {
		t.Errorf("clear 10%% shift: stopped at %d, %+v", stopped, d)
	}
	if _, err := s.Decide(0, a, b); err == nil {
		t.Errorf("look 0 accepted")
	}
	if _, err := s.Decide(21, a, b); err == nil {
		t.Errorf("look after MaxRuns accepted")
	}
	if _, err := s.Decide(3, a[:5], b[:3]); err == nil {
		t.Errorf("more values than pairs accepted")
	}
	if _, err := s.Decide(1, a[:1], []float64{math.NaN()}); err == nil {
		t.Errorf("NaN accepted")
	}
}

// TestSequentialFinalLook checks that the look after the last pair is
// taken: it decides a difference when its data show one, and otherwise
// stops saying that the maximum was reached.
func TestSequentialFinalLook(t *testing.T) {
	s, _ := NewSequential(0.05, 5, 8, 0)
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	same := []float64{1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}
	d, err := s.Decide(8, a, same)
	if err != nil || !d.Stop || d.Significant || !strings.Contains(d.Reason, "maximum of 8") {
		t.Errorf("at MaxRuns without a difference: %+v %v", d, err)
	}
	// p = 2/C(16,8) at the last look: decided there.
	far := []float64{11, 12, 13, 14, 15, 16, 17, 18}
	d, _ = s.Decide(8, a, far)
	if !d.Stop || !d.Significant || !strings.Contains(d.Reason, "difference decided") {
		t.Errorf("at MaxRuns with a difference: %+v", d)
	}
}

// TestSequentialFailedRuns checks that a look after a failed repetition
// is the look of its pair: its level is that of the pair number, not of
// the number of values, and a side without values is not an error.
func TestSequentialFailedRuns(t *testing.T) {
	s, _ := NewSequential(0.05, 5, 30, 0)
	a := []float64{1, 2, 3, 4, 5, 6}
	b := []float64{11, 12, 13, 14, 15} // one B run failed
	d, err := s.Decide(6, a, b)
	if err != nil || d.N != 6 || d.NA != 6 || d.NB != 5 || d.NominalAlpha != s.Levels[6] {
		t.Errorf("look after pair 6 with 6+5 values: %+v %v", d, err)
	}
	d, err = s.Decide(6, a, nil)
	if err != nil || d.Stop {
		t.Errorf("no B values: %+v %v", d, err)
	}
	d, err = s.Decide(30, a, nil)
	if err != nil || !d.Stop || !strings.Contains(d.Reason, "maximum") {
		t.Errorf("no B values at the maximum: %+v %v", d, err)
	}
}

func TestSequentialPrecisionStop(t *testing.T) {
	s, _ := NewSequential(0.05, 5, 100, 0.01)
	rng := rand.New(rand.NewPCG(7, 7))
	var a, b []float64
	for n := 1; n <= 100; n++ {
		a = append(a, 100+0.5*rng.NormFloat64())
		b = append(b, 100+0.5*rng.NormFloat64())
		d, err := s.Decide(n, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Stop {
			if !strings.Contains(d.Reason, "precise") || !strings.Contains(d.Reason, "95% interval") || (d.Hi-d.Lo)/2 > 0.01 {
				t.Errorf("stopped at %d: %s", n, d.Reason)
			}
			return
		}
	}
	t.Errorf("never stopped")
}

func TestFormatAlpha(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0.05, "0.05"}, {0.05 / 24, "0.00208"}, {0.0020833333333333333, "0.00208"}, {0.01, "0.01"}, {1.2345e-5, "1.2e-05"}, {0, "0"}} {
		if got := FormatAlpha(c.x); got != c.want {
			t.Errorf("FormatAlpha(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
