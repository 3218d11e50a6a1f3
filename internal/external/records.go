package external

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A Record is one repetition found in a log by Records.
type Record struct {
	Line    int // 1-based line of the match that started it
	Metrics map[string]float64
	Text    string // the log lines of the record
	Err     string // why the record is incomplete; empty when complete
}

type match struct {
	spec         int
	start, end   int // byte offsets of the whole match
	vstart, vend int // and of the value (the first group)
}

var quotePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*(?:>[ \t]?)+`) })

// Unquote removes mail quoting ("> ", "> > ") from the start of each line.
func Unquote(log string) string { return quotePrefix().ReplaceAllString(log, "") }

// Records cuts log into records: each match of specs[0] starts a new
// record, and a match of any other metric belongs to the record started
// last before it. A record missing a metric, or with a metric matched
// twice, is returned with Err set (a failed repetition). A metric that no
// record has at all (a log cut with grep) is dropped with a warning, and
// the specs used are returned. Matches of other metrics before the first
// record are reported in the warnings too. lo..hi (1-based, inclusive, 0
// for open) selects records before they are checked.
func Records(specs []Spec, log string, lo, hi int) ([]Record, []Spec, []string, error) {
	if len(specs) == 0 {
		return nil, nil, nil, fmt.Errorf("no metric to look for")
	}
	var ms []match
	nrec := 0
	for i, s := range specs {
		ms = findMatches(ms, s.Regex, i, log)
		if i == 0 {
			nrec = len(ms)
		}
	}
	if len(specs) > 1 {
		// The matches of each spec come in order: one spec needs no sort.
		slices.SortStableFunc(ms, func(x, y match) int {
			if x.start != y.start {
				return cmp.Compare(x.start, y.start)
			}
			return cmp.Compare(x.spec, y.spec)
		})
	}
	// Metrics are counted by name: the index of each spec's name.
	names := map[string]int{}
	nameOf := make([]int, len(specs))
	for i, s := range specs {
		if _, ok := names[s.Name]; !ok {
			names[s.Name] = len(names)
		}
		nameOf[i] = names[s.Name]
	}
	var recs []Record
	var starts []int // byte offset of each record's start
	if nrec > 0 {
		recs, starts = make([]Record, 0, nrec), make([]int, 0, nrec)
	}
	// seenAll[k*len(names)+n]: matches of name n in record k.
	seenAll := make([]int, 0, nrec*len(names))
	seen := func(k int, name string) *int { return &seenAll[k*len(names)+names[name]] }
	var warns []string
	orphans := map[string]int{}
	// line is the line number at byte offset counted: matches come in
	// order, so counting newlines from the last match keeps this O(len(log)).
	line, counted := 1, 0
	for _, m := range ms {
		s := specs[m.spec]
		if m.spec == 0 {
			line += strings.Count(log[counted:m.start], "\n")
			counted = m.start
			recs = append(recs, Record{Line: line, Metrics: make(map[string]float64, len(names))})
			starts = append(starts, lineStart(log, m.start))
			seenAll = append(seenAll, make([]int, len(names))...)
		}
		if len(recs) == 0 {
			orphans[s.Name]++
			continue
		}
		k := len(recs) - 1
		c := &seenAll[k*len(names)+nameOf[m.spec]]
		*c++
		if *c > 1 {
			if recs[k].Err == "" {
				recs[k].Err = fmt.Sprintf("metric %s matched %d times in the record starting at line %d", s.Name, *c, recs[k].Line)
			}
			continue
		}
		v, err := s.Value(log[m.vstart:m.vend])
		if err != nil {
			if recs[k].Err == "" {
				recs[k].Err = err.Error()
			}
			continue
		}
		recs[k].Metrics[s.Name] = v
	}
	if lo > 0 || hi > 0 {
		if lo == 0 {
			lo = 1
		}
		if hi == 0 || hi > len(recs) {
			hi = len(recs)
		}
		if lo > len(recs) {
			return nil, nil, nil, fmt.Errorf("--select %d..: only %d records in the log", lo, len(recs))
		}
		recs, starts, seenAll = recs[lo-1:hi], starts[lo-1:hi], seenAll[(lo-1)*len(names):hi*len(names)]
	}
	used := []Spec{specs[0]}
	for _, s := range specs[1:] {
		hit := false
		for k := range recs {
			hit = hit || *seen(k, s.Name) > 0
		}
		if hit || len(recs) == 0 {
			used = append(used, s)
		} else {
			warns = append(warns, fmt.Sprintf("metric %s: not in any record of the log; left out", s.Name))
		}
	}
	for k := range recs {
		end := len(log)
		if k+1 < len(starts) {
			end = starts[k+1]
		} else if next := nextStart(specs[0], log, starts[k]); next > 0 {
			end = next
		}
		recs[k].Text = strings.TrimRight(log[starts[k]:end], "\n")
		for _, s := range used {
			if *seen(k, s.Name) == 0 && recs[k].Err == "" {
				recs[k].Err = fmt.Sprintf("metric %s: no match of /%s/ in the record starting at line %d", s.Name, s.Regex, recs[k].Line)
			}
		}
		if recs[k].Err != "" {
			recs[k].Metrics = nil
		}
	}
	for _, name := range sortedKeys(orphans) {
		warns = append(warns, fmt.Sprintf("%d match(es) of %s before the first match of %s were ignored", orphans[name], name, specs[0].Name))
	}
	return recs, used, warns, nil
}

// nextStart returns the start of the line of the first match of s after
// the line at off, or 0.
func nextStart(s Spec, log string, off int) int {
	nl := strings.IndexByte(log[off:], '\n')
	if nl < 0 {
		return 0
	}
	loc := s.Regex.FindStringIndex(log[off+nl+1:])
	if loc == nil {
		return 0
	}
	return lineStart(log, off+nl+1+loc[0])
}

func lineStart(s string, off int) int {
	return strings.LastIndexByte(s[:off], '\n') + 1
}

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CutLines returns lines from..to (1-based, inclusive; 0 means the start
// or the end) of log.
func CutLines(log string, from, to int) (string, error) {
	lines := strings.SplitAfter(log, "\n")
	if from <= 0 {
		from = 1
	}
	if to <= 0 || to > len(lines) {
		to = len(lines)
	}
	if from > len(lines) {
		return "", fmt.Errorf("--from %d: the log has only %d lines", from, len(lines))
	}
	if from > to {
		return "", fmt.Errorf("--from %d is after --to %d", from, to)
	}
	return strings.Join(lines[from-1:to], ""), nil
}

// ParseSelect parses N..M, N.., ..M or N (1-based, inclusive) into a range
// of records; 0 means open.
func ParseSelect(s string) (lo, hi int, err error) {
	bad := fmt.Errorf("--select %q: accepted: N..M, N.., ..M or N (records counted from 1)", s)
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		b = a
	}
	parse := func(t string) (int, error) {
		if t == "" {
			return 0, nil
		}
		var n int
		if _, err := fmt.Sscan(t, &n); err != nil || fmt.Sprint(n) != t || n < 1 {
			return 0, bad
		}
		return n, nil
	}
	if lo, err = parse(a); err != nil {
		return
	}
	if hi, err = parse(b); err != nil {
		return
	}
	if s == "" || s == ".." || (hi > 0 && lo > hi) {
		return 0, 0, bad
	}
	return lo, hi, nil
}
