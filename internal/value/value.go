// Package value parses the kinds of values that several commands' flags
// share, one parser per kind, so that a percentage, a significance level or
// a timeout means the same under every flag that takes one: the typed flag
// values (Int, Float, Level, Percent, Duration, Enum, BoolText) that commands
// declare their flags with, and the functions they use. Errors name
// neither the flag nor the command: callers say which flag they read
// ("--until: ..."). Sizes are workload.ParseSize (workload parameters and
// --mem-style flags), one parser too.
package value

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// errNotFraction is Fraction's error for a text that is not a number.
var errNotFraction = errors.New("give a percentage such as 2% or a fraction such as 0.02")

// Fraction parses a percentage ("5%", "0.5 %") or a fraction ("0.05") into
// a fraction (0.05). A bare number from 1 to below 100 is refused with a
// hint, since 5 most likely means 5% and would otherwise read as 500%.
// It checks no range: see Open.
func Fraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	div := 1.0
	if x, ok := strings.CutSuffix(t, "%"); ok {
		t, div = strings.TrimSpace(x), 100
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !Decimal(t) || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errNotFraction
	}
	if div == 1 && v >= 1 && v < 100 {
		return 0, fmt.Errorf("a bare number is a fraction (0.02 = 2%%); did you mean %s%%?", t)
	}
	return v / div, nil
}

// AlphaMax is the bound (excluded) of every significance level: a
// two-sided test at a level of one half or more calls a difference more
// often than not when there is none, so no level from 0.5 up is useful.
const AlphaMax = 0.5

// AlphaRange says in words which significance levels Alpha accepts.
const AlphaRange = "a number above 0 and below 0.5, such as 0.05"

// Alpha checks a significance level: 0 < a < AlphaMax. ab, ab exec and
// compare take --alpha under this one rule.
func Alpha(a float64) error {
	if !(a > 0 && a < AlphaMax) {
		return fmt.Errorf("%v is not a significance level; accepted: %s", a, AlphaRange)
	}
	return nil
}

// ParseAlpha parses and checks a significance level (see Alpha), as a
// Level flag does.
func ParseAlpha(s string) (float64, error) {
	var a Level
	err := a.Set(s)
	return float64(a), err
}

// Timeout parses a positive Go duration ("90s", "10m"), as a Duration
// flag does.
func Timeout(s string) (time.Duration, error) {
	var d Duration
	err := d.Set(s)
	return d.D, err
}

// Decimal reports whether s is a number in decimal notation: an optional
// sign, digits with an optional fraction, an optional exponent. strconv's
// parsers also take hex ("0x1p-4"), underscores ("1_000"), "Inf" and
// "NaN", which no flag of contend means: every number a flag reads (sizes,
// fractions, levels, loads) is checked with it first.
func Decimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}
