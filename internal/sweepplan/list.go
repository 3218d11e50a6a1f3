// Package sweepplan plans scalability sweeps of a workload: the lists of
// swept values, the points, the repetitions in rounds and the throughput
// metric. It knows workloads (and so links the C code); reading, reporting
// and fitting sweep files is package sweep, which links no cgo so that
// contend-plot does not either.
package sweepplan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"contend/internal/workload"
)

// MaxPoints bounds the values of one swept parameter and the number of
// points of a sweep, so a typo ("1..100000") is refused rather than run.
const MaxPoints = 256

// ListSyntax says in words what ParseList accepts.
const ListSyntax = "a list such as 1,2,4,8; a range with a step such as 10..100+10; a geometric range such as 1..64x2 (1,2,4,...,64); or a mix such as 1,2..8+2"

// ParseList parses a sweep list for parameter p into canonical values, in
// the order given. An item is a single value, "LO..HI+STEP" (arithmetic:
// LO, LO+STEP, ... up to HI) or "LO..HIxF" (geometric: LO, LO*F, LO*F^2,
// ... up to HI, each rounded to an integer). HI is included when the
// sequence reaches it. Every value is checked by p.Parse, so ranges and
// units (1MiB..8MiBx2, 100ms..1s+100ms) hold as for a single value.
// Ranges need an Int, Size or Duration parameter; lists work for all
// kinds. A value given twice is an error.
func ParseList(p workload.Param, text string) ([]string, error) {
	bad := func(why string) error {
		return workload.Usagef("--%s: %s; accepted: %s, each %s", p.Name, why, ListSyntax, p.Range())
	}
	if strings.TrimSpace(text) == "" {
		return nil, bad("empty list")
	}
	var out []string
	seen := map[string]bool{}
	add := func(c string) error {
		if seen[c] {
			return bad(fmt.Sprintf("%s is given twice", p.Display(c)))
		}
		seen[c] = true
		out = append(out, c)
		if len(out) > MaxPoints {
			return bad(fmt.Sprintf("more than %d values", MaxPoints))
		}
		return nil
	}
	for _, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, bad(fmt.Sprintf("empty item in %q", text))
		}
		lo, rest, isRange := strings.Cut(item, "..")
		if !isRange {
			c, err := p.Parse(item)
			if err != nil {
				// The value's own reason, with what a list accepts:
				// "1-4" is no integer, and no range either.
				why, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "--"+p.Name+": "), "; accepted:")
				if a, b, ok := strings.Cut(item, "-"); ok && a != "" && b != "" && !strings.Contains(b, "-") {
					why += fmt.Sprintf(" (did you mean the range %s..%s?)", a, b)
				}
				return nil, bad(why)
			}
			if err := add(c); err != nil {
				return nil, err
			}
			continue
		}
		if p.Kind != workload.Int && p.Kind != workload.Size && p.Kind != workload.Duration {
			return nil, bad(fmt.Sprintf("%q: a range needs a numeric parameter; list the values", item))
		}
		vals, err := expandRange(p, item, lo, rest, bad)
		if err != nil {
			return nil, err
		}
		for _, c := range vals {
			if err := add(c); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// reversed reports whether LO..HI (no step) has LO above HI.
func reversed(p workload.Param, loText, hiText string) bool {
	lo, err1 := parseInt(p, loText)
	hi, err2 := parseInt(p, hiText)
	return err1 == nil && err2 == nil && lo > hi
}

// expandRange expands "LO..HI+STEP" or "LO..HIxF".
func expandRange(p workload.Param, item, loText, rest string, bad func(string) error) ([]string, error) {
	i := strings.LastIndexAny(rest, "+x")
	if i < 0 {
		if reversed(p, loText, rest) {
			return nil, bad(fmt.Sprintf("%q is reversed: a range goes up, such as %s..%s+1 or %s..%sx2 (the order of the runs is set by --order)", item, rest, loText, rest, loText))
		}
		return nil, bad(fmt.Sprintf("%q: a range needs a step, LO..HI+STEP or LO..HIxFACTOR", item))
	}
	hiText, op, stepText := rest[:i], rest[i], rest[i+1:]
	if strings.TrimSpace(loText) == "" || strings.TrimSpace(hiText) == "" {
		return nil, bad(fmt.Sprintf("%q: a range needs both ends, LO..HI%c%s", item, op, stepText))
	}
	lo, err := parseInt(p, loText)
	if err != nil {
		return nil, err
	}
	hi, err := parseInt(p, hiText)
	if err != nil {
		return nil, err
	}
	if lo > hi {
		return nil, bad(fmt.Sprintf("%q is reversed: a range goes up, such as %s..%s%c%s (the order of the runs is set by --order)", item, hiText, loText, op, stepText))
	}
	var vals []int64
	switch op {
	case '+':
		// The step is a value of the same kind (2, 1MiB, 100ms), at least 1.
		sp := p
		sp.Name, sp.Min, sp.Max = p.Name+" step", 1, 0
		c, err := sp.Parse(stepText)
		if err != nil {
			return nil, bad(fmt.Sprintf("%q: step %q is not a positive %s", item, stepText, kindWord(p.Kind)))
		}
		step, _ := strconv.ParseInt(c, 10, 64)
		if (hi-lo)/step >= MaxPoints {
			return nil, bad(fmt.Sprintf("%q has more than %d values", item, MaxPoints))
		}
		for v := lo; v <= hi; v += step {
			vals = append(vals, v)
			if v > math.MaxInt64-step {
				break
			}
		}
	case 'x':
		f, err := strconv.ParseFloat(strings.TrimSpace(stepText), 64)
		if err != nil || !(f > 1) || math.IsInf(f, 0) {
			return nil, bad(fmt.Sprintf("%q: factor %q is not a number above 1", item, stepText))
		}
		if lo < 1 {
			return nil, bad(fmt.Sprintf("%q: a geometric range must start at 1 or more", item))
		}
		for x := float64(lo); x <= float64(hi)*(1+1e-12); x *= f {
			v := int64(math.Round(x))
			if v > hi {
				break
			}
			if len(vals) == 0 || vals[len(vals)-1] != v {
				vals = append(vals, v)
			}
			if len(vals) > MaxPoints {
				return nil, bad(fmt.Sprintf("%q has more than %d values", item, MaxPoints))
			}
		}
	}
	var out []string
	for _, v := range vals {
		c, err := p.Parse(strconv.FormatInt(v, 10) + canonSuffix(p.Kind))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// canonSuffix makes a canonical integer parse back as itself: Duration
// takes a bare number as seconds, so nanoseconds need "ns".
func canonSuffix(k workload.Kind) string {
	if k == workload.Duration {
		return "ns"
	}
	return ""
}

func parseInt(p workload.Param, text string) (int64, error) {
	c, err := p.Parse(text)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(c, 10, 64)
}

func kindWord(k workload.Kind) string {
	switch k {
	case workload.Size:
		return "size"
	case workload.Duration:
		return "duration"
	}
	return "integer"
}
