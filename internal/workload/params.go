package workload

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"contend/internal/limits"
	"contend/internal/value"
)

// Kind is the type of a parameter's value.
type Kind int

// Parameter kinds. Values are kept as canonical text: Int and Size as a
// decimal integer (Size in bytes), Duration as integer nanoseconds, Enum as
// the choice, Bool as "true" or "false", String as given (a path).
const (
	Int Kind = iota
	Size
	Duration
	Enum
	Bool
	String
)

// Param describes one parameter of a workload.
type Param struct {
	Name  string // flag name without dashes
	Kind  Kind
	Usage string // one line for --help
	// Default is the original program's value, as a user would type it.
	// DefaultFunc, when set, computes a machine-dependent default instead
	// (for example the number of online CPUs); DefaultText then says how.
	Default     string
	DefaultFunc func(v Values) string
	DefaultText string
	Min, Max    int64    // inclusive bounds of Int, Size and Duration
	Choices     []string // the values of an Enum
	Unit        string   // what a number counts, for list and reports: "threads", "bytes", "ns"
}

// UsageError is bad input from the user: the command exits with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Values holds a workload's parameter values as canonical text, keyed by
// parameter name.
type Values map[string]string

// Int returns an Int, Size or Duration value, for code that iterates a
// workload's Params (sweeps, reports). A workload's own functions read its
// parameter struct instead (Define): there a name is never typed twice.
func (v Values) Int(name string) int64 {
	n, err := strconv.ParseInt(v[name], 10, 64)
	if err != nil {
		panic(fmt.Sprintf("workload: parameter %s=%q is not canonical", name, v[name]))
	}
	return n
}

// Clone returns a copy of v.
func (v Values) Clone() Values {
	c := make(Values, len(v))
	for k, x := range v {
		c[k] = x
	}
	return c
}

// Range says in words which values p accepts.
func (p Param) Range() string {
	switch p.Kind {
	case Int:
		if p.Max > 0 {
			return fmt.Sprintf("an integer from %d to %d", p.Min, p.Max)
		}
		return fmt.Sprintf("an integer of at least %d", p.Min)
	case Size:
		return fmt.Sprintf("a size from %s to %s, such as 512MiB or 10GiB", FormatSize(p.Min), FormatSize(p.Max))
	case Duration:
		return fmt.Sprintf("a duration from %s to %s, such as 500ms or 30s", time.Duration(p.Min), time.Duration(p.Max))
	case Enum:
		return "one of " + strings.Join(p.Choices, ", ")
	case Bool:
		return "true or false"
	case String:
		return "a non-empty text"
	}
	return ""
}

// Parse turns a user's text into the canonical value of p, or returns a
// *UsageError that names the flag and the accepted range.
func (p Param) Parse(text string) (string, error) {
	bad := func(why string) error {
		return Usagef("--%s: %s; accepted: %s", p.Name, why, p.Range())
	}
	t := strings.TrimSpace(text)
	if t == "" {
		return "", bad("empty value")
	}
	var n int64
	switch p.Kind {
	case Int:
		x, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				if strings.HasPrefix(t, "-") {
					return "", bad(fmt.Sprintf("%q is too small", t))
				}
				return "", bad(fmt.Sprintf("%q is too large", t))
			}
			return "", bad(fmt.Sprintf("%q is not an integer", t))
		}
		n = x
	case Size:
		x, err := ParseSize(t)
		if err != nil {
			return "", bad(err.Error())
		}
		n = x
	case Duration:
		d, err := time.ParseDuration(t)
		if err != nil {
			// A bare number is seconds, as the originals took them.
			if x, err2 := strconv.ParseInt(t, 10, 64); err2 == nil && x < math.MaxInt64/int64(time.Second) && x > math.MinInt64/int64(time.Second) {
				d = time.Duration(x) * time.Second
			} else {
				return "", bad(fmt.Sprintf("%q is not a duration", t))
			}
		}
		n = int64(d)
	case Enum:
		for _, c := range p.Choices {
			if t == c {
				return t, nil
			}
		}
		return "", bad(fmt.Sprintf("%q is not a choice", t))
	case Bool:
		b, err := strconv.ParseBool(t)
		if err != nil {
			return "", bad(fmt.Sprintf("%q is not a boolean", t))
		}
		return strconv.FormatBool(b), nil
	case String:
		return text, nil
	}
	if n < p.Min || (p.Max > 0 && n > p.Max) {
		return "", bad(fmt.Sprintf("%s is out of range", t))
	}
	return strconv.FormatInt(n, 10), nil
}

// Display renders a canonical value for people: sizes with binary units,
// durations as Go durations.
func (p Param) Display(canon string) string {
	switch p.Kind {
	case Size:
		n, err := strconv.ParseInt(canon, 10, 64)
		if err == nil {
			return FormatSize(n)
		}
	case Duration:
		n, err := strconv.ParseInt(canon, 10, 64)
		if err == nil {
			return time.Duration(n).String()
		}
	}
	return canon
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"TB", 1000 * 1000 * 1000 * 1000},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"k", 1 << 10}, {"B", 1}, {"", 1},
}

// ParseSize parses a byte count such as "4096", "512MiB", "10GiB" or
// "1.5G". K, M, G, T and their *iB forms are binary; KB, MB, GB, TB decimal.
// The number is decimal (digits, a fraction, an exponent: no hex, no
// underscores) and must come to a whole number of bytes: "1.5" or
// "0.1KiB" is refused, not rounded. A value outside int64 is "too large"
// (or "too small", for a negative one), never wrapped.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	for _, u := range sizeUnits {
		if !strings.HasSuffix(s, u.suffix) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(s, u.suffix))
		if num == "" || !value.Decimal(num) {
			break
		}
		if i, err := strconv.ParseInt(num, 10, 64); err == nil {
			if i > math.MaxInt64/u.mult {
				return 0, fmt.Errorf("%q is too large", s)
			}
			if i < math.MinInt64/u.mult {
				return 0, fmt.Errorf("%q is too small", s)
			}
			return i * u.mult, nil
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			break
		}
		if mant, _, _ := strings.Cut(strings.ToLower(num), "e"); f == 0 && strings.ContainsAny(mant, "123456789") {
			// Below the smallest float (ParseFloat says 0), not 0: 1e-400KiB.
			return 0, fmt.Errorf("%q is not a whole number of bytes", s)
		}
		v := f * float64(u.mult)
		if v >= math.MaxInt64 {
			return 0, fmt.Errorf("%q is too large", s)
		}
		if v <= math.MinInt64 {
			return 0, fmt.Errorf("%q is too small", s)
		}
		if v != math.Trunc(v) {
			return 0, fmt.Errorf("%q is %s bytes, not a whole number of bytes", s, strconv.FormatFloat(v, 'f', -1, 64))
		}
		return int64(v), nil
	}
	return 0, fmt.Errorf("%q is not a size", s)
}

// FormatSize renders n bytes as limits.FormatSize does (the parameters'
// sizes and the limits' refusals read alike).
func FormatSize(n int64) string { return limits.FormatSize(n) }

// Resolve builds the complete Values of w from the user's given texts
// (name -> text): each given value is parsed and checked against its
// range, every other parameter gets its default.
func (w *Workload) Resolve(given map[string]string) (Values, error) {
	w.complete()
	v := Values{}
	for name := range given {
		if _, ok := w.Param(name); !ok {
			return nil, Usagef("%s has no parameter --%s; see 'contend help %s'", w.Name, name, w.Name)
		}
	}
	for _, p := range w.Params {
		if t, ok := given[p.Name]; ok {
			c, err := p.Parse(t)
			if err != nil {
				return nil, err
			}
			v[p.Name] = c
		}
	}
	if err := w.fillDefaults(v); err != nil {
		return nil, err
	}
	return v, nil
}

// fillDefaults gives every parameter that v lacks its default.
func (w *Workload) fillDefaults(v Values) error {
	for _, p := range w.Params {
		if _, ok := v[p.Name]; ok {
			continue
		}
		def := p.Default
		if p.DefaultFunc != nil {
			def = p.DefaultFunc(v)
		}
		if p.Kind == String && def == "" {
			return Usagef("%s needs --%s: %s", w.Name, p.Name, p.Usage)
		}
		c, err := p.Parse(def)
		if err != nil {
			return fmt.Errorf("workload %s: default of --%s: %v", w.Name, p.Name, err)
		}
		v[p.Name] = c
	}
	return nil
}

// Canonical checks values read back from a result file, which are
// canonical as Resolve made them: it returns them with the default of
// every parameter the file lacks (a file older than the parameter), or an
// error naming a value that is not a canonical value of its parameter
// (an edited file).
func (w *Workload) Canonical(v Values) (Values, error) {
	w.complete()
	c := v.Clone()
	if err := w.fillDefaults(c); err != nil {
		return nil, err
	}
	if w.bound == nil {
		return c, nil // no parameters
	}
	if err := bindingOf(w.bound).decode(c, reflect.New(w.bound).Elem()); err != nil {
		return nil, err
	}
	return c, nil
}

// DefaultString says what the default of p is, for list and help: in
// the form a run prints its value (Display of the canonical value:
// "4KiB", not the tag's "4096"), or DefaultText.
func (p Param) DefaultString() string {
	if p.DefaultText != "" {
		return p.DefaultText
	}
	if c, err := p.Parse(p.Default); err == nil {
		return p.Display(c)
	}
	return p.Default
}
