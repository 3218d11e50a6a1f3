package external

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"contend/internal/plural"
	"contend/internal/results"
)

// A Record is one repetition found in a log by Records.
type Record struct {
	Line    int // 1-based line of the match that started it
	Metrics results.Values
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
	sc, used, warns, err := Scan(specs, log, lo, hi)
	if err != nil {
		return nil, nil, nil, err
	}
	var recs []Record
	if sc.Len() > 0 {
		recs = make([]Record, 0, sc.Len())
	}
	sc.Each(func(_ int, r *Record) bool {
		x := *r
		if x.Metrics != nil {
			x.Metrics = x.Metrics.Clone()
		}
		recs = append(recs, x)
		return true
	})
	return recs, used, warns, nil
}

// A RecordScan holds what Scan found of the records of a log, so that
// Each can make them one at a time: an import of 100,000 records needs
// neither 100,000 records nor their maps at once.
type RecordScan struct {
	log     string
	used    []Spec
	usedIdx []int // the name index of each used spec
	names   []string
	// Per record (k), of the records selected: the line and byte offset
	// of its start, what was seen of each name (seen[k*len(names)+n]
	// matches, the first one's value in vals), its error so far.
	line, start []int
	seen        []int32
	vals        []float64
	errs        map[int]string
	lastEnd     int // where the text of the last record ends
}

// Len returns the number of records.
func (sc *RecordScan) Len() int { return len(sc.line) }

// Each calls fn with each record in order, as Records returns them, until
// fn returns false. It passes the same Record each time, its Metrics
// refilled (nil when Err is set): fn must copy what it keeps.
func (sc *RecordScan) Each(fn func(i int, r *Record) bool) {
	nn := len(sc.names)
	m := make(results.Values, 0, nn)
	// The name indices in name order: each record's metrics are appended
	// in it, sorted as Values keeps them.
	order := make([]int, nn)
	for n := range order {
		order[n] = n
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(sc.names[a], sc.names[b]) })
	var r Record
	for k := range sc.line {
		end := sc.lastEnd
		if k+1 < len(sc.start) {
			end = sc.start[k+1]
		}
		r = Record{Line: sc.line[k], Text: strings.TrimRight(sc.log[sc.start[k]:end], "\n"), Err: sc.errs[k]}
		seen := sc.seen[k*nn : (k+1)*nn]
		for i, s := range sc.used {
			if seen[sc.usedIdx[i]] == 0 && r.Err == "" {
				r.Err = fmt.Sprintf("metric %s: no match of /%s/ in the record starting at line %d", s.Name, s.Regex, r.Line)
			}
		}
		if r.Err == "" {
			// Every name seen once, its value parsed (else Err is set).
			m = m[:0]
			for _, n := range order {
				if seen[n] == 1 {
					m = append(m, results.Value{Name: sc.names[n], X: sc.vals[k*nn+n]})
				}
			}
			r.Metrics = m
		}
		if !fn(k, &r) {
			return
		}
	}
}

// Scan finds the records of log as Records does and returns them to be
// made one at a time (RecordScan.Each), with the specs used and the
// warnings.
func Scan(specs []Spec, log string, lo, hi int) (*RecordScan, []Spec, []string, error) {
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
	sc := &RecordScan{log: log, errs: map[int]string{}}
	nameOf := make([]int, len(specs))
	for i, s := range specs {
		if _, ok := names[s.Name]; !ok {
			names[s.Name] = len(names)
			sc.names = append(sc.names, s.Name)
		}
		nameOf[i] = names[s.Name]
	}
	nn := len(names)
	sc.line, sc.start = make([]int, 0, nrec), make([]int, 0, nrec)
	sc.seen, sc.vals = make([]int32, 0, nrec*nn), make([]float64, 0, nrec*nn)
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
			sc.line = append(sc.line, line)
			sc.start = append(sc.start, lineStart(log, m.start))
			sc.seen = append(sc.seen, make([]int32, nn)...)
			sc.vals = append(sc.vals, make([]float64, nn)...)
		}
		k := len(sc.line) - 1
		if k < 0 {
			orphans[s.Name]++
			continue
		}
		c := &sc.seen[k*nn+nameOf[m.spec]]
		*c++
		if *c > 1 {
			if _, ok := sc.errs[k]; !ok {
				sc.errs[k] = fmt.Sprintf("metric %s matched %d times in the record starting at line %d", s.Name, *c, sc.line[k])
			}
			continue
		}
		v, err := s.Value(log[m.vstart:m.vend])
		if err != nil {
			if _, ok := sc.errs[k]; !ok {
				sc.errs[k] = err.Error()
			}
			continue
		}
		sc.vals[k*nn+nameOf[m.spec]] = v
	}
	nall := len(sc.line)
	first := 0 // the first record selected
	if lo > 0 || hi > 0 {
		var warn string
		var err error
		if lo, hi, warn, err = selectRange(lo, hi, nall, specs[0].Name); err != nil {
			return nil, nil, nil, err
		}
		if warn != "" {
			warns = append(warns, warn)
		}
		first = lo - 1
		sc.line, sc.start = sc.line[lo-1:hi], sc.start[lo-1:hi]
		sc.seen, sc.vals = sc.seen[(lo-1)*nn:hi*nn], sc.vals[(lo-1)*nn:hi*nn]
	}
	if first > 0 || len(sc.errs) > 0 {
		errs := map[int]string{}
		for k, e := range sc.errs {
			if k -= first; k >= 0 && k < len(sc.line) {
				errs[k] = e
			}
		}
		sc.errs = errs
	}
	sc.used = []Spec{specs[0]}
	sc.usedIdx = []int{nameOf[0]}
	for i, s := range specs[1:] {
		hit := false
		for k := range sc.line {
			hit = hit || sc.seen[k*nn+nameOf[i+1]] > 0
		}
		if hit || len(sc.line) == 0 {
			sc.used = append(sc.used, s)
			sc.usedIdx = append(sc.usedIdx, nameOf[i+1])
		} else {
			warns = append(warns, fmt.Sprintf("metric %s: not in any record of the log; left out", s.Name))
		}
	}
	sc.lastEnd = len(log)
	if n := len(sc.start); n > 0 {
		if next := nextStart(specs[0], log, sc.start[n-1]); next > 0 {
			sc.lastEnd = next
		}
	}
	for _, name := range sortedKeys(orphans) {
		warns = append(warns, fmt.Sprintf("%d match(es) of %s before the first match of %s were ignored", orphans[name], name, specs[0].Name))
	}
	return sc, sc.used, warns, nil
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
	if len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the final newline ends the last line, starts none
	}
	if from <= 0 {
		from = 1
	}
	if to > 0 && from > to {
		return "", fmt.Errorf("--from %d is after --to %d", from, to)
	}
	if to <= 0 || to > len(lines) {
		to = len(lines)
	}
	if from > len(lines) {
		return "", fmt.Errorf("--from %d: the log has only %s", from, plural.N(len(lines), "line", "lines"))
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
