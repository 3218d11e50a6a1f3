package run

import (
	"fmt"
	"math"

	"contend/analysis"
	"contend/internal/results"
)

// UnstableCV is the dispersion above which a configuration's runs are
// called unstable (analysis.UnstableCV: the standard deviation of the
// primary metric above 10% of its mean, pyperf's threshold); the
// headline of a comparison says so too (comparison.Instability).
const UnstableCV = analysis.UnstableCV

// UnstableWarnings returns one warning per configuration of f whose
// primary metric varies more than UnstableCV over 3 or more successful
// repetitions, with the figure.
func UnstableWarnings(f *results.File) []string {
	var out []string
	for i := range f.Configs {
		xs := f.Values(i, f.Primary)
		if len(xs) < 3 {
			continue
		}
		mean, sd := meanSD(xs)
		if mean == 0 || sd/math.Abs(mean) <= UnstableCV {
			continue
		}
		who := ""
		if len(f.Configs) > 1 {
			who = f.ConfigName(i) + ": "
		}
		out = append(out, fmt.Sprintf("unstable: %s%s varies by %.1f%% over %d runs (stdev/mean; above %.0f%% the runs are noisier than a quiet machine gives): see 'contend check' and 'contend tune'",
			who, f.Primary, 100*sd/math.Abs(mean), len(xs), 100*UnstableCV))
	}
	return out
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
