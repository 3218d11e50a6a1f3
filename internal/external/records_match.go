package external

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// findMatches appends to ms the matches of re in log that set its first
// group, as re.FindAllStringSubmatchIndex finds them, spec being their
// metric. A regexp that only matches within a line (lineLocal) is run on
// each line that can hold a match: the same matches, found about twice as
// fast, and without the slice of every match FindAll grows (on a whole
// log of 100,000 records it runs the slower of Go's matchers).
func findMatches(ms []match, re *regexp.Regexp, spec int, log string) []match {
	add := func(off int, loc []int) {
		if loc[2] >= 0 {
			ms = append(ms, match{spec: spec, start: off + loc[0], end: off + loc[1], vstart: off + loc[2], vend: off + loc[3]})
		}
	}
	minLen, ok := lineLocal(re)
	// Room for a match per line (or per prefix) at once: growing the
	// slice step by step copied it about five times.
	prefix, _ := re.LiteralPrefix()
	if prefix != "" {
		ms = slices.Grow(ms, strings.Count(log, prefix))
	} else {
		ms = slices.Grow(ms, strings.Count(log, "\n")+1)
	}
	if !ok {
		for _, loc := range re.FindAllStringSubmatchIndex(log, -1) {
			add(0, loc)
		}
		return ms
	}
	// Every match begins with the literal prefix: only the lines holding
	// it are looked at.
	for off := 0; off < len(log); {
		if prefix != "" {
			i := strings.Index(log[off:], prefix)
			if i < 0 {
				break
			}
			off += strings.LastIndexByte(log[off:off+i], '\n') + 1
		}
		end := len(log)
		if i := strings.IndexByte(log[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := log[off:end]
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
