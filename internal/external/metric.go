// Package external runs unmodified external programs the way contend runs
// its own workloads (one process per repetition, in its own process group,
// timed and accounted by the parent, killed on timeout), and turns their
// printed output into metrics: `contend exec`, `contend import` and the
// original side of `contend verify`.
package external

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"contend/internal/results"
	"contend/internal/workload"
)

// A Spec says how to read one metric from a program's output: the first
// capture group of Regex, a number (or a duration such as 0m46.765s for
// time units) in Unit, stored in the base unit of Unit.
type Spec struct {
	Name   string
	Regex  *regexp.Regexp
	Unit   string // as the user wrote it: us, s, KiB, count, ops/s ...
	Better workload.Better
	Desc   string
}

// unitTable maps the units a user may write to a base unit and a factor.
var unitTable = map[string]struct {
	base string
	mult float64
}{
	"ns": {"ns", 1}, "us": {"ns", 1e3}, "usec": {"ns", 1e3}, "usecs": {"ns", 1e3}, "µs": {"ns", 1e3},
	"ms": {"ns", 1e6}, "s": {"ns", 1e9}, "sec": {"ns", 1e9}, "secs": {"ns", 1e9},
	"B": {"bytes", 1}, "bytes": {"bytes", 1}, "KiB": {"bytes", 1 << 10}, "kB": {"bytes", 1 << 10},
	"MiB": {"bytes", 1 << 20}, "GiB": {"bytes", 1 << 30},
	"count": {"count", 1}, "ops": {"count", 1}, "ops/s": {"ops/s", 1}, "ratio": {"ratio", 1},
	"%": {"ratio", 0.01},
}

// Units lists the units a --metric may name, for error messages.
func Units() string {
	return "ns, us, ms, s, B, KiB, MiB, GiB, count, ops/s, ratio, %"
}

// BaseUnit returns the base unit values of s are stored in.
func (s Spec) BaseUnit() string { return unitTable[s.Unit].base }

// Metric returns the result-file description of s.
func (s Spec) Metric() results.Metric {
	desc := s.Desc
	if desc == "" {
		desc = fmt.Sprintf("extracted from the output by /%s/ (%s)", s.Regex, s.Unit)
	}
	return results.Metric{Name: s.Name, Unit: s.BaseUnit(), Better: string(s.Better), Desc: desc}
}

var metricName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]*$`) })

// ParseSpec parses NAME=REGEX[:UNIT[:lower|higher]]. UNIT defaults to
// count and the direction to none. A colon inside REGEX needs no escape,
// unless what follows the last colon is a unit or a direction; write it
// as \: then.
func ParseSpec(text string) (Spec, error) {
	name, rest, ok := strings.Cut(text, "=")
	if !ok || name == "" || rest == "" {
		return Spec{}, fmt.Errorf("%q is not NAME=REGEX[:UNIT[:lower|higher]]", text)
	}
	if !metricName().MatchString(name) {
		return Spec{}, fmt.Errorf("metric name %q: use lower-case letters, digits and _ (starting with a letter)", name)
	}
	s := Spec{Name: name, Unit: "count"}
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		last := rest[i+1:]
		if last == "lower" || last == "higher" {
			s.Better = workload.Better(last)
			rest = rest[:i]
			i = strings.LastIndexByte(rest, ':')
			if i < 0 {
				return Spec{}, fmt.Errorf("metric %s: a direction needs a unit before it (NAME=REGEX:UNIT:%s)", name, last)
			}
			last = rest[i+1:]
			if _, ok := unitTable[last]; !ok {
				return Spec{}, fmt.Errorf("metric %s: unknown unit %q; accepted: %s", name, last, Units())
			}
		}
		if _, ok := unitTable[last]; ok && !strings.HasSuffix(rest[:i], `\`) {
			s.Unit = last
			rest = rest[:i]
		} else if plainWord().MatchString(last) && !strings.HasSuffix(rest[:i], `\`) {
			return Spec{}, fmt.Errorf("metric %s: unknown unit %q; accepted: %s (write a colon that belongs to the regex as \\:)", name, last, Units())
		}
	}
	re, err := regexp.Compile(rest)
	if err != nil {
		return Spec{}, fmt.Errorf("metric %s: bad regex %q: %v", name, rest, err)
	}
	if re.NumSubexp() < 1 {
		return Spec{}, fmt.Errorf("metric %s: regex %q has no capture group; put the number in ( )", name, rest)
	}
	s.Regex = re
	return s, nil
}

var plainWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z/%µ]+$`) })

// Value converts the captured text to the base unit of s: a number, or
// for time units a duration such as 1m18.933s or 0.0145s.
func (s Spec) Value(text string) (float64, error) {
	t := strings.TrimSpace(text)
	u := unitTable[s.Unit]
	x, err := strconv.ParseFloat(strings.ReplaceAll(t, ",", ""), 64)
	if err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
		// Finite as read, but maybe not in the base unit (1e300 s in ns).
		if v := x * u.mult; !math.IsInf(v, 0) {
			return v, nil
		}
		return 0, fmt.Errorf("metric %s: %q is too large: out of a float64's range in %s", s.Name, t, u.base)
	}
	if u.base == "ns" {
		if d, err := time.ParseDuration(t); err == nil {
			return float64(d), nil
		}
	}
	return 0, fmt.Errorf("metric %s: %q is not a number", s.Name, t)
}

// Extract finds each metric of specs exactly once in out. Zero or several
// matches of a metric is an error that names the metric and its regex.
func Extract(specs []Spec, out string) (map[string]float64, error) {
	m := map[string]float64{}
	for _, s := range specs {
		all := s.Regex.FindAllStringSubmatch(out, -1)
		switch {
		case len(all) == 0:
			return nil, fmt.Errorf("metric %s: no match of /%s/ in the output", s.Name, s.Regex)
		case len(all) > 1:
			return nil, fmt.Errorf("metric %s: %d matches of /%s/ in the output, want exactly one (%s)", s.Name, len(all), s.Regex, quoteMatches(all))
		}
		v, err := s.Value(all[0][1])
		if err != nil {
			return nil, err
		}
		m[s.Name] = v
	}
	return m, nil
}

func quoteMatches(all [][]string) string {
	var q []string
	for i, a := range all {
		if i == 3 {
			q = append(q, "...")
			break
		}
		q = append(q, strconv.Quote(a[0]))
	}
	return strings.Join(q, ", ")
}
