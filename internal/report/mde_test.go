package report

import (
	"math"
	"testing"

	"contend/analysis"
)

func TestMDEPhrase(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		up, down float64
		want     string
	}{
		{0.148, 0.129, "80% power to detect +15% or -13%"},
		{inf, 0.5, "80% power to detect -50%, no increase"},
		{0.3, inf, "80% power to detect +30%, no decrease"},
		{inf, inf, "too noisy to detect any change with 80% power"},
	} {
		cmp := &analysis.Comparison{Power: 0.8, MDEUp: c.up, MDEDown: c.down}
		if got := mdePhrase(cmp); got != c.want {
			t.Errorf("up %v down %v: %q, want %q", c.up, c.down, got, c.want)
		}
	}
}
