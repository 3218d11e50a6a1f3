// Package report renders result files and statistics for people (text that
// fits an 80-column mail) and for scripts (JSON, the original programs'
// output).
package report

import (
	"fmt"
	"math"
	"strings"
)

// Scale is a unit prefix chosen for a row of values.
type Scale struct {
	Div  float64
	Unit string
}

// ScaleFor picks the scale for values of unit around ref: ns become ns, µs,
// ms or s; bytes become B, KiB, MiB or GiB; counts and rates get k, M, G.
// From SciLarge on no prefix helps: values keep their base unit and Num
// prints them in scientific notation.
func ScaleFor(unit string, ref float64) Scale {
	a := math.Abs(ref)
	if a >= SciLarge {
		switch unit {
		case "count", "ratio", "":
			return Scale{1, ""}
		case "bytes":
			return Scale{1, "B"}
		}
		return Scale{1, unit}
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
	return num + " " + s.Unit
}

// SciLarge is the magnitude from which ScaleFor gives up prefixes and
// keeps the base unit. SciNumLarge and SciNumSmall bound the numbers Num
// prints in positional notation: from SciNumLarge on, and below
// SciNumSmall (but not 0), it prints them in scientific notation,
// "1.000e+300", rather than 300 digits or "0.000".
const (
	SciLarge    = 1e15
	SciNumLarge = 1e7
	SciNumSmall = 1e-3
)

// Num renders v in scale s with four significant digits, without the unit
// (for tables that name the unit in a column of its own). Numbers of
// SciNumLarge and more, or below SciNumSmall, in the scale are in
// scientific notation.
func (s Scale) Num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	x := v / s.Div
	var num string
	switch ax := math.Abs(x); {
	case ax == 0:
		num = "0"
	case math.IsInf(x, 0):
		num = fmt.Sprintf("%+v", x)
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
