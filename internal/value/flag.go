package value

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The flag values below are what commands declare their numeric flags
// with: each is a flag.Value (Set, String, Get), preset to its default and
// to its accepted range, whose Set refuses a bad text with an error that
// says what was wrong and what is accepted, without the flag's name (the
// caller adds it). String is empty when the value holds no default (one
// outside its range), so that help shows none.

// Int is an integer from Min to Max; N is the value (preset: the default).
type Int struct{ N, Min, Max int }

// Set parses s, an integer from Min to Max.
func (v *Int) Set(s string) error {
	t := strings.TrimSpace(s)
	n, err := strconv.Atoi(t)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("%s is out of range; accepted: %s", t, v.accepted())
	case err != nil:
		return fmt.Errorf("%q is not an integer; accepted: %s", s, v.accepted())
	case n < v.Min || n > v.Max:
		return fmt.Errorf("%d is out of range; accepted: %s", n, v.accepted())
	}
	v.N = n
	return nil
}

func (v *Int) accepted() string {
	switch {
	case v.Min == math.MinInt && v.Max == math.MaxInt:
		return "an integer"
	case v.Min == 0 && v.Max == math.MaxInt:
		return "a non-negative integer"
	}
	return fmt.Sprintf("an integer from %d to %d", v.Min, v.Max)
}

func (v *Int) String() string {
	if v == nil || v.N < v.Min || v.N > v.Max {
		return ""
	}
	return strconv.Itoa(v.N)
}

// Get returns N (flag.Getter).
func (v *Int) Get() any { return v.N }

// Float is a number from Min to Max (either may be infinite), described
// to the user by Accepted ("a load average, 0 or more, such as 1").
type Float struct {
	X, Min, Max float64
	Accepted    string
}

// Set parses s, a finite number from Min to Max.
func (v *Float) Set(s string) error {
	t := strings.TrimSpace(s)
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !Decimal(t) || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("%q is not a number; accepted: %s", s, v.Accepted)
	}
	if x < v.Min || x > v.Max {
		return fmt.Errorf("%s is not accepted; accepted: %s", t, v.Accepted)
	}
	v.X = x
	return nil
}

func (v *Float) String() string {
	if v == nil || !(v.X >= v.Min && v.X <= v.Max) {
		return ""
	}
	return strconv.FormatFloat(v.X, 'g', -1, 64)
}

// Get returns X (flag.Getter).
func (v *Float) Get() any { return v.X }

// Level is a significance level under the one rule of Alpha.
type Level float64

// Set parses s, a significance level (ParseAlpha).
func (v *Level) Set(s string) error {
	t := strings.TrimSpace(s)
	a, err := strconv.ParseFloat(t, 64)
	if err != nil || !Decimal(t) {
		return fmt.Errorf("%q is not a number; accepted: %s", s, AlphaRange)
	}
	if Alpha(a) != nil {
		return fmt.Errorf("%s is not accepted; accepted: %s", t, AlphaRange)
	}
	*v = Level(a)
	return nil
}

func (v *Level) String() string {
	if v == nil || Alpha(float64(*v)) != nil {
		return ""
	}
	return strconv.FormatFloat(float64(*v), 'g', -1, 64)
}

// Get returns the level as a float64 (flag.Getter).
func (v *Level) Get() any { return float64(*v) }

// Percent is a percentage or fraction (Fraction) below 100%: at least 0
// when Zero is true, else above 0. F is the fraction (0.05 for 5%).
type Percent struct {
	F    float64
	Zero bool
}

// Set parses s (Fraction) and checks its range.
func (v *Percent) Set(s string) error {
	f, err := Fraction(s)
	if err != nil && err != errNotFraction {
		return fmt.Errorf("%q is not accepted: %v", s, err)
	}
	if err != nil || !v.ok(f) {
		return fmt.Errorf("%q is not accepted; accepted: %s", s, v.accepted())
	}
	v.F = f
	return nil
}

func (v *Percent) ok(f float64) bool { return (f > 0 || v.Zero && f == 0) && f < 1 }

func (v *Percent) accepted() string {
	if v.Zero {
		return "a percentage from 0 to below 100%, such as 2%, or a fraction such as 0.02"
	}
	return "a percentage above 0 and below 100%, such as 5%, or a fraction such as 0.05"
}

func (v *Percent) String() string {
	if v == nil || !v.ok(v.F) {
		return ""
	}
	return strconv.FormatFloat(v.F*100, 'g', 6, 64) + "%"
}

// Get returns F (flag.Getter).
func (v *Percent) Get() any { return v.F }

// Duration is a Go duration ("90s", "10m") above 0 (or 0 too, when Zero
// is true), at least Min and, when Max is not 0, at most Max.
type Duration struct {
	D, Min, Max time.Duration
	Zero        bool
}

// Set parses s and checks its range.
func (v *Duration) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || !v.ok(d) {
		return fmt.Errorf("%q is not accepted; accepted: %s", s, v.accepted())
	}
	v.D = d
	return nil
}

func (v *Duration) ok(d time.Duration) bool {
	return (d > 0 || v.Zero && d == 0) && d >= v.Min && (v.Max == 0 || d <= v.Max)
}

func (v *Duration) accepted() string {
	var r string
	switch {
	case v.Min > 0 && v.Max > 0:
		r = "a duration from " + Short(v.Min) + " to " + Short(v.Max)
	case v.Zero && v.Max > 0:
		r = "a duration from 0 to " + Short(v.Max)
	case v.Zero:
		r = "a duration, 0 or more"
	case v.Max > 0:
		r = "a positive duration up to " + Short(v.Max)
	case v.Min > 0:
		r = "a duration of at least " + Short(v.Min)
	default:
		r = "a positive duration"
	}
	if v.ok(v.D) && v.D > 0 {
		return r + " such as " + Short(v.D)
	}
	return r + " such as 90s or 10m"
}

func (v *Duration) String() string {
	if v == nil || !v.ok(v.D) {
		return ""
	}
	return Short(v.D)
}

// Get returns D (flag.Getter).
func (v *Duration) Get() any { return v.D }

// Short writes d as time.Duration does without zero trailing units: 1m,
// 1h, 1m30s, 500ms.
func Short(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// BoolText is the text given to a boolean flag, kept as given ("true"
// for the bare flag, "maybe" for --flag=maybe) for its reader to check:
// a workload's boolean parameter is parsed, as every parameter, by
// Workload.Resolve, so that its error is the parameter's.
type BoolText string

// Set keeps s.
func (v *BoolText) Set(s string) error { *v = BoolText(s); return nil }

func (v *BoolText) String() string {
	if v == nil {
		return ""
	}
	return string(*v)
}

// Get returns the text (flag.Getter).
func (v *BoolText) Get() any { return string(*v) }

// IsBoolFlag makes the flag package take --flag alone as --flag=true.
func (v *BoolText) IsBoolFlag() bool { return true }
