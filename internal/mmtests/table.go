package mmtests

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
)

// The widths of mmtests' columns: a value is FieldWidth wide at least
// (Extract.pm's field length, which every shellpack benchmark keeps), its
// change CompareWidth (and the parentheses, the percent sign and a space).
const (
	FieldWidth   = 18
	CompareWidth = 7
)

// Env keys of a result file made from an mmtests run (contend import
// mmtests): the run's name (which names its side), its benchmark and the
// digits mmtests printed its values with (DecimalPlaces).
const (
	NameEnv      = "mmtests.name"
	BenchEnv     = "mmtests.benchmark"
	PrecisionEnv = "mmtests.precision"
)

// Row is one operation of the table (a metric): its values on each side
// and what the adapter decided of its stars.
type Row struct {
	Op string
	// Higher: higher values are better (Hmean, pdiff); else lower are
	// (Amean, pndiff).
	Higher bool
	// Precision is the digits after the point of its values (mmtests'
	// DecimalPlaces, 2 by default).
	Precision int
	// Values are each side's values, baseline first.
	Values [][]float64
	// Star marks side i's mean cell as significantly different from the
	// baseline's (Star[0] is not used).
	Star []bool
}

// Table is one comparison in mmtests' layout.
type Table struct {
	// Names are the run names, baseline first: each is split at its
	// first '-' over the two header lines (SplitName).
	Names []string
	Rows  []Row
	// Width is the values' field width; 0 is FieldWidth, or wider where a
	// value needs it.
	Width int
	// Footer lines follow the table after an empty line: what its columns
	// cannot carry.
	Footer []string
}

// Summaries returns each row's statistics of each side.
func (t Table) Summaries() [][]Summary {
	out := make([][]Summary, len(t.Rows))
	for i, r := range t.Rows {
		for _, v := range r.Values {
			out[i] = append(out[i], Summarise(v, r.Higher))
		}
	}
	return out
}

var rcVersion = regexp.MustCompile(`^-rc[0-9]+`)

// SplitName splits a run name over mmtests' two header lines: the part
// before its first '-' (a kernel version, with its -rcN) and the rest.
// mmtests cuts the last character of a name without '-' on the first line
// and keeps an -rc of two digits short; here such a name is on the second
// line alone, and -rc10 stays whole.
func SplitName(name string) (string, string) {
	i := strings.IndexByte(name, '-')
	if i < 0 {
		return "", name
	}
	if m := rcVersion.FindString(name[i:]); m != "" {
		i += len(m)
		if i >= len(name) {
			return name, ""
		}
	}
	return name[:i], strings.TrimPrefix(name[i:], "-")
}

// Write renders t: the two header lines, a block of rows per statistic
// (an operation a row), and the footer.
func Write(w io.Writer, t Table) error {
	sums := t.Summaries()
	statW, opW := 0, 0
	for _, r := range t.Rows {
		opW = max(opW, len(r.Op))
		for s := Stat(0); s < nStats; s++ {
			statW = max(statW, len(s.Name(r.Higher)))
		}
	}
	width := t.Width
	if width == 0 {
		width = FieldWidth
		for i, r := range t.Rows {
			for _, sm := range sums[i] {
				for _, v := range sm {
					width = max(width, len(value(v, r.Precision)))
				}
			}
		}
	}
	var b strings.Builder
	top, bottom := fmt.Sprintf("%*s", statW+opW+1, ""), fmt.Sprintf("%*s", statW+opW+1, "")
	for _, n := range t.Names {
		a, z := SplitName(n)
		top += fmt.Sprintf("%*s", width+CompareWidth+4, a)
		bottom += fmt.Sprintf("%*s", width+CompareWidth+4, z)
	}
	b.WriteString(top + "\n" + bottom + "\n")
	for s := Stat(0); s < nStats; s++ {
		for i, r := range t.Rows {
			fmt.Fprintf(&b, "%-*s %-*s", statW, s.Name(r.Higher), opW, r.Op)
			base := sums[i][0][s]
			for side, sm := range sums[i] {
				v, change := sm[s], 0.0
				better := r.Higher && !s.lowerIsBetterStat()
				switch {
				case math.IsNaN(v) || v == -1 || base == -1:
					v = 0 // mmtests prints what it cannot compute as 0
				case math.IsNaN(base):
					change = nanBase(v, better)
				default:
					change = Change(v, base, better)
				}
				open, shut := "(", ")"
				if s == StatMean && side > 0 && side < len(r.Star) && r.Star[side] {
					open, shut = "*", "*"
				}
				fmt.Fprintf(&b, "%*s %s%*.2f%%%s", width, value(v, r.Precision), open, CompareWidth, change, shut)
			}
			b.WriteString("\n")
		}
	}
	if len(t.Footer) > 0 {
		b.WriteString("\n")
		for _, l := range t.Footer {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nanBase is mmtests' change of v against a baseline that is not a
// number: 100 where higher is better, not a number otherwise (0 and 100
// for a v of 0).
func nanBase(v float64, higherBetter bool) float64 {
	switch {
	case higherBetter && v == 0:
		return 0
	case higherBetter:
		return 100
	case v == 0:
		return 100
	}
	return math.NaN()
}

func value(v float64, prec int) string {
	if math.IsNaN(v) {
		v = 0
	}
	return fmt.Sprintf("%.*f", prec, v)
}
