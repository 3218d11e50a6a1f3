package units

import (
	"math"
	"testing"
)

func TestHumanExtremeNumbers(t *testing.T) {
	for _, c := range []struct {
		unit string
		v    float64
		want string
	}{
		{"count", 1e300, "1.000e+300"},
		{"ops/s", 1e300, "1.000e+300 ops/s"},
		{"ns", 1e300, "1.000e+300 ns"},
		{"bytes", 1e300, "1.000e+300 B"},
		{"ratio", math.MaxFloat64, "1.798e+308"},
		{"count", -1e300, "-1.000e+300"},
		{"ns", 1e-310, "1.000e-310 ns"},
		{"ratio", 5e-324, "4.941e-324"},
		{"ratio", 0.0002, "2.000e-04"},
		{"count", 2621440, "2621440"},
		{"ns", 11.3e9, "11.30 s"},
		{"ops/s", 2.5e9, "2.500 G ops/s"},
		{"ratio", 0.5, "0.500"},
	} {
		if got := Human(c.unit, c.v); got != c.want {
			t.Errorf("Human(%q, %g) = %q, want %q", c.unit, c.v, got, c.want)
		}
	}
	if got := Percent(1e300); got != "+1.000e+302%" {
		t.Errorf("Percent(1e300) = %q", got)
	}
}
