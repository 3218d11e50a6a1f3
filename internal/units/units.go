// Package units scales values of contend's units for people: ns to µs, ms
// or s, bytes to KiB, MiB or GiB, counts and rates to k, M, G, a power of
// ten where no prefix fits (Scale, ScaleFor, Human), and fractions as
// signed percentages (Percent).
package units

import (
	"fmt"
	"math"
	"strings"
)

// Scale is a unit prefix chosen for a row of values. For values too large
// or too small for any prefix it is a power of ten, and Unit starts with
// the exponent: Div 1e-310, Unit "e-310 ns" renders 1.15e-310 as
// "1.150e-310 ns" (Format), or "1.150" in a table whose column names the
// unit (Num).
type Scale struct {
	Div  float64
	Unit string
}

// SciLarge and SciSmall bound the magnitudes for which ScaleFor picks a
// unit prefix; values from SciLarge on, or below SciSmall (not 0), get a
// power of ten (scientific notation) instead of a 300-digit number or
// "0.000".
const (
	SciLarge = 1e15
	SciSmall = 1e-3
)

// ScaleFor picks the scale for values of unit around ref: ns become ns, µs,
// ms or s; bytes become B, KiB, MiB or GiB; counts and rates get k, M, G.
// Values from SciLarge on or below SciSmall get a power of ten.
func ScaleFor(unit string, ref float64) Scale {
	a := math.Abs(ref)
	if a >= SciLarge || a > 0 && a < SciSmall {
		return sciScale(unit, a)
	}
	switch unit {
	case "ns":
		switch {
		case a >= 1e9:
			return Scale{1e9, "s"}
		case a >= 1e6:
			return Scale{1e6, "ms"}
		case a >= 1e3:
			return Scale{1e3, "µs"}
		}
		return Scale{1, "ns"}
	case "bytes":
		switch {
		case a >= 1<<30:
			return Scale{1 << 30, "GiB"}
		case a >= 1<<20:
			return Scale{1 << 20, "MiB"}
		case a >= 1<<10:
			return Scale{1 << 10, "KiB"}
		}
		return Scale{1, "B"}
	case "ratio":
		return Scale{1, ""}
	}
	suffix := ""
	if unit != "count" && unit != "" {
		suffix = " " + unit
	}
	if unit == "count" && a < 1e7 {
		return Scale{1, ""}
	}
	switch {
	case a >= 1e9:
		return Scale{1e9, "G" + suffix}
	case a >= 1e6:
		return Scale{1e6, "M" + suffix}
	case a >= 1e4:
		return Scale{1e3, "k" + suffix}
	}
	return Scale{1, strings.TrimSpace(suffix)}
}

// Format renders v in scale s with four significant digits and the unit.
func (s Scale) Format(v float64) string {
	num := s.Num(v)
	if s.Unit == "" || num == "-" {
		return num
	}
	if _, ok := s.exponent(); ok {
		if strings.Contains(num, "e") || strings.Contains(num, "Inf") {
			// Far from the scale: the value on its own.
			return strings.TrimSpace(num + " " + strings.TrimSpace(strings.TrimLeft(s.Unit[1:], "+-0123456789")))
		}
		return num + s.Unit
	}
	return num + " " + s.Unit
}

// SciNumLarge and SciNumSmall bound the numbers Num prints in positional
// notation; beyond them (a value far from the one its scale was chosen
// for) it prints them in scientific notation.
const (
	SciNumLarge = 1e7
	SciNumSmall = 1e-3
)

// sciScale is the scale of a power of ten for values of unit around a > 0.
func sciScale(unit string, a float64) Scale {
	e := int(math.Floor(math.Log10(a)))
	if a < 0x1p-1022 {
		// math.Log10 is wrong for subnormals (golang/go#56600).
		e = int(math.Floor(math.Log10(a*0x1p54) - 54*math.Log10(2)))
	}
	base := unit
	switch unit {
	case "count", "ratio":
		base = ""
	case "bytes":
		base = "B"
	}
	// Div is for callers that divide by it; 10^-324 is 0 in float64
	// (Num and Format use the exponent in Unit).
	return Scale{Div: math.Pow10(max(e, -323)), Unit: strings.TrimSpace(fmt.Sprintf("e%+03d %s", e, base))}
}

// exponent returns the power of ten of a scale made by sciScale, and
// whether it is one.
func (s Scale) exponent() (int, bool) {
	if !strings.HasPrefix(s.Unit, "e") || len(s.Unit) < 3 || (s.Unit[1] != '+' && s.Unit[1] != '-') {
		return 0, false
	}
	f := strings.Fields(s.Unit)[0]
	var e int
	if _, err := fmt.Sscanf(f, "e%d", &e); err != nil {
		return 0, false
	}
	return e, true
}

// scaled returns v/s.Div, computed without dividing by a subnormal power
// of ten.
func (s Scale) scaled(v float64) float64 {
	if e, ok := s.exponent(); ok && e < -290 {
		return v * 1e300 / math.Pow10(e+300)
	}
	return v / s.Div
}

// Num renders v in scale s with four significant digits, without the unit
// (for tables that name the unit in a column of its own). Numbers of
// SciNumLarge and more, or below SciNumSmall, in the scale are in
// scientific notation.
func (s Scale) Num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	x := s.scaled(v)
	_, sci := s.exponent()
	var num string
	switch ax := math.Abs(x); {
	case v == 0:
		num = "0"
	case math.IsInf(v, 0):
		num = fmt.Sprintf("%+v", v)
	case sci && (ax >= SciNumLarge || ax < SciNumSmall || math.IsInf(x, 0)):
		// Far from the power of ten of the scale: the value itself.
		num = fmt.Sprintf("%.3e", v)
	case ax >= SciNumLarge || ax < SciNumSmall:
		num = fmt.Sprintf("%.3e", x)
	case s.Div == 1 && x == math.Trunc(x) && ax < 1e6:
		num = fmt.Sprintf("%.0f", x)
	case ax >= 1000:
		num = fmt.Sprintf("%.0f", x)
	case ax >= 100:
		num = fmt.Sprintf("%.1f", x)
	case ax >= 10:
		num = fmt.Sprintf("%.2f", x)
	default:
		num = fmt.Sprintf("%.3f", x)
	}
	return num
}

// Human renders v of unit with a scale chosen for v itself.
func Human(unit string, v float64) string { return ScaleFor(unit, v).Format(v) }

// Percent renders a fraction as a percentage with sign, in scientific
// notation from SciNumLarge percent on.
func Percent(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	if math.Abs(x*100) >= SciNumLarge {
		return fmt.Sprintf("%+.3e%%", x*100)
	}
	return fmt.Sprintf("%+.1f%%", x*100)
}

// Signed puts a plus sign before a printed number that has no sign.
func Signed(num string) string {
	if num == "-" || strings.HasPrefix(num, "-") || strings.HasPrefix(num, "+") {
		return num
	}
	return "+" + num
}
