package bisect

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ParsePrior reads a prior over the culprit: one line per weighted
// commit, "REV WEIGHT" (REV a hash or an unambiguous prefix of one, at
// least 4 characters, of a commit after the good end; WEIGHT a positive
// number), blank lines and lines starting with # ignored; every commit
// not named weighs 1. It returns the weights of commits 0..n (0 unused).
func ParsePrior(r io.Reader, commits []Commit) ([]float64, error) {
	w := make([]float64, len(commits))
	for i := range w {
		w[i] = 1
	}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Fields(t)
		if len(f) != 2 {
			return nil, fmt.Errorf("--prior: line %d: %q is not 'REV WEIGHT'", line, t)
		}
		x, err := strconv.ParseFloat(f[1], 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("--prior: line %d: weight %q is not accepted; accepted: a positive number", line, f[1])
		}
		at := -1
		for i := 1; i < len(commits); i++ {
			if len(f[0]) >= 4 && strings.HasPrefix(commits[i].Hash, strings.ToLower(f[0])) {
				if at >= 0 {
					return nil, fmt.Errorf("--prior: line %d: %q names more than one commit of the range", line, f[0])
				}
				at = i
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("--prior: line %d: %q is not a commit after --good in the range (a hash or a prefix of 4 or more characters)", line, f[0])
		}
		w[at] = x
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--prior: %v", err)
	}
	return w, nil
}
