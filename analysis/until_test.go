package analysis

import (
	"fmt"
	"strings"
	"testing"
)

// TestUntilReasonStatesHalfWidth checks that a stop for precision says the
// rule it applied (the half-width of the interval at most X%), and never
// calls an interval with an end beyond ±X% "at most ±X% wide".
func TestUntilReasonStatesHalfWidth(t *testing.T) {
	s, err := NewSequential(0.05, 5, 20, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{100, 180, 60, 140, 90, 210, 75}
	b := []float64{85, 120, 50, 140, 65, 110, 70}
	d, err := s.Decide(len(a), a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Stop || !strings.HasPrefix(d.Reason, "precise enough") {
		t.Fatalf("no stop for precision: [%v, %v], %q", d.Lo, d.Hi, d.Reason)
	}
	if d.Lo >= -0.5 {
		t.Fatalf("test data: want an interval with its low end beyond -50%%, got [%v, %v]", d.Lo, d.Hi)
	}
	half := fmt.Sprintf("half-width %.3g%%", 100*(d.Hi-d.Lo)/2)
	if !strings.Contains(d.Reason, half) || strings.Contains(d.Reason, "±") {
		t.Errorf("reason %q: want it to state %q and not claim ±50%%", d.Reason, half)
	}
}
