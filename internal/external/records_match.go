package external

import (
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// matchParallelMin is the size of log from which findMatches runs a
// regexp with a literal prefix on every CPU, each on a range of lines (a
// variable for the tests).
var matchParallelMin = 1 << 20

// findMatches appends to ms the matches of re in log that set its first
// group, as re.FindAllStringSubmatchIndex finds them, spec being their
// metric. A regexp that only matches within a line (lineLocal) is run on
// each line that can hold a match: the same matches, found about twice as
// fast, and without the slice of every match FindAll grows (on a whole
// log of 100,000 records it runs the slower of Go's matchers); on a large
// log, ranges of lines on every CPU.
func findMatches(ms []match, re *regexp.Regexp, spec int, log string) []match {
	minLen, ok := lineLocal(re)
	// Room for a match per line (or per prefix) at once: growing the
	// slice step by step copied it about five times.
	prefix, _ := re.LiteralPrefix()
	if !ok {
		ms = slices.Grow(ms, matchRoom(log, prefix))
		for _, loc := range re.FindAllStringSubmatchIndex(log, -1) {
			if loc[2] >= 0 {
				ms = append(ms, match{spec: spec, start: loc[0], end: loc[1], vstart: loc[2], vend: loc[3]})
			}
		}
		return ms
	}
	workers := min(runtime.GOMAXPROCS(0), 1+len(log)/matchParallelMin)
	if prefix == "" || workers < 2 {
		ms = slices.Grow(ms, matchRoom(log, prefix))
		return lineMatches(ms, re, spec, log, 0, prefix, minLen)
	}
	// Each range of whole lines gets a room in ms of the number of its
	// prefixes, which no range exceeds (every match starts with one, and
	// matches do not overlap), then the matches are moved together.
	type part struct {
		start, end, at int
		got            []match
	}
	parts := make([]part, 0, workers)
	at := len(ms)
	for start := 0; start < len(log); {
		end := len(log)
		if left := workers - len(parts); left > 1 {
			end = start + (len(log)-start)/left
			if i := strings.IndexByte(log[end:], '\n'); i >= 0 {
				end += i + 1
			} else {
				end = len(log)
			}
		}
		parts = append(parts, part{start: start, end: end, at: at})
		at += strings.Count(log[start:end], prefix)
		start = end
	}
	base := len(ms)
	ms = slices.Grow(ms, at-base)[:at]
	var wg sync.WaitGroup
	for k := range parts {
		p := &parts[k]
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := at
			if k+1 < len(parts) {
				next = parts[k+1].at
			}
			p.got = lineMatches(ms[p.at:p.at:next], re, spec, log[p.start:p.end], p.start, prefix, minLen)
		}()
	}
	wg.Wait()
	ms = ms[:base]
	for _, p := range parts {
		ms = append(ms, p.got...) // moved down within ms
	}
	return ms
}

// lineMatches appends the matches of re, lineLocal, in text (at byte
// offset off of the log) to ms, a line at a time.
func lineMatches(ms []match, re *regexp.Regexp, spec int, text string, off0 int, prefix string, minLen int) []match {
	add := func(off int, loc []int) {
		if loc[2] >= 0 {
			off += off0
			ms = append(ms, match{spec: spec, start: off + loc[0], end: off + loc[1], vstart: off + loc[2], vend: off + loc[3]})
		}
	}
	// Every match begins with the literal prefix: only the lines holding
	// it are looked at.
	for off := 0; off < len(text); {
		if prefix != "" {
			i := strings.Index(text[off:], prefix)
			if i < 0 {
				break
			}
			off += strings.LastIndexByte(text[off:off+i], '\n') + 1
		}
		end := len(text)
		if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := text[off:end]
		if loc := re.FindStringSubmatchIndex(line); loc != nil {
			add(off, loc)
			// Another match in the rest of the line? Rarely: then all of
			// them, as FindAll finds them after the first.
			rest := strings.TrimSuffix(line[loc[1]:], "\n")
			if len(rest) >= minLen && (prefix == "" || strings.Contains(rest, prefix)) {
				for _, loc := range re.FindAllStringSubmatchIndex(line, -1)[1:] {
					add(off, loc)
				}
			}
		}
		off = end
	}
	return ms
}

// matchRoom returns the room to make for the matches in log of a regexp
// with literal prefix: one per occurrence of prefix (each match starts
// with one), else one per line.
func matchRoom(log, prefix string) int {
	if prefix != "" {
		return strings.Count(log, prefix)
	}
	return strings.Count(log, "\n") + 1
}

// lineLocal tells whether every match of re lies within one line, found
// there as in the whole text: re matches no newline, no empty string, and
// asserts nothing about the start or end of the text (a line's ends look
// the same to \b and (?m)^ $ as in the whole text). minLen is the length
// its shortest match has at least.
func lineLocal(re *regexp.Regexp) (minLen int, ok bool) {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return 0, false
	}
	if !withinLine(t) {
		return 0, false
	}
	minLen = shortest(t)
	return minLen, minLen >= 1
}

// withinLine tells whether t matches no newline and no start or end of
// the text.
func withinLine(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpAnyChar, syntax.OpBeginText, syntax.OpEndText:
		return false
	case syntax.OpLiteral:
		for _, r := range t.Rune {
			if r == '\n' {
				return false
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(t.Rune); i += 2 {
			if t.Rune[i] <= '\n' && '\n' <= t.Rune[i+1] {
				return false
			}
		}
	}
	for _, s := range t.Sub {
		if !withinLine(s) {
			return false
		}
	}
	return true
}

// shortest returns the length in bytes of the shortest text t matches,
// at least (a character counts 1).
func shortest(t *syntax.Regexp) int {
	switch t.Op {
	case syntax.OpLiteral:
		return len(t.Rune)
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return shortest(t.Sub[0])
	case syntax.OpRepeat:
		return t.Min * shortest(t.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range t.Sub {
			n += shortest(s)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, s := range t.Sub {
			if m := shortest(s); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0 // empty-width assertions, *, ?, an empty match, no match
}
