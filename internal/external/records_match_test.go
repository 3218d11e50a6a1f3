package external

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestFindMatchesSameAsFindAll checks that the matches found line by line
// are those regexp's FindAll finds in the whole log, for regexps that
// stay within a line and regexps that do not (which findMatches hands to
// FindAll): word boundaries and line anchors at line ends, several
// matches on a line, overlapping prefixes, empty groups, text anchors,
// patterns across lines; on one CPU and on several, each a range of
// lines.
func TestFindMatchesSameAsFindAll(t *testing.T) {
	exprs := []string{
		`took (\d+) ns`, `(\d+) pages`, `\b(\d+)\b`, `(?m)^(\d+)`, `(?m)(\d+)$`, `x=(\S+)`,
		`(?i)TOOK (\d+)`, `t(o+)k`, `took|(\d)`, `(a)?b`, `((?:to)+)ok`, `é(\d)`, `(\d+)\s+ns`,
		`(\d*)`, `^took (\d+)`, `(\d+) ns$`, `(?s)took(.)`, `took[^x](\d)`, `(took)\n`, `\B(\d)\B`, `(\w+)`,
		`((?:took )*)(\d+) ns`, `took (\d+) ns|(\d+) pages`,
	}
	pieces := []string{"took 12 ns", "took took 7 ns", "3 pages", "12", " ", "x=1.5", "tok", "toook", "b", "ab", "é5", "took\n", "9 \n ns", "\n", "\n\n", "ns", "tooktook 1 ns"}
	rng := rand.New(rand.NewPCG(31, 32))
	defer func(n int) { matchParallelMin = n }(matchParallelMin)
	local := 0
	for _, e := range exprs {
		re := regexp.MustCompile(e)
		if _, ok := lineLocal(re); ok {
			local++
		}
		for trial := range 300 {
			var b strings.Builder
			for range rng.IntN(30) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
				if rng.IntN(3) == 0 {
					b.WriteString("\n")
				}
			}
			log := b.String()
			var want []match
			for _, loc := range re.FindAllStringSubmatchIndex(log, -1) {
				if loc[2] >= 0 {
					want = append(want, match{spec: 1, start: loc[0], end: loc[1], vstart: loc[2], vend: loc[3]})
				}
			}
			// Odd trials: on every CPU, each a range of lines.
			matchParallelMin = []int{1 << 20, 1 + rng.IntN(40)}[trial%2]
			got := findMatches(nil, re, 1, log)
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("/%s/ trial %d on %q:\n line by line %v\n FindAll      %v", e, trial, log, got, want)
			}
		}
	}
	if local < len(exprs)/2 {
		t.Errorf("only %d of %d regexps are matched line by line", local, len(exprs))
	}
}

// TestLineLocal: which regexps findMatches may run line by line.
func TestLineLocal(t *testing.T) {
	for e, want := range map[string]bool{
		`took (\d+) ns`: true, `\b(\d+)\b`: true, `(?m)^(\d+)$`: true, `(\S+)`: true, `[a-z](\d*)`: true,
		`(\d*)`: false, `^(\d+)`: false, `(\d+)$`: false, `(?s)a(.)`: false, `a\n(\d)`: false, `(\s+)`: false,
		`[^x](\d)`: false, `(\d+)\z`: false, `\A(\d+)`: false, `(a|)`: false, `(a)?`: false,
	} {
		if _, got := lineLocal(regexp.MustCompile(e)); got != want {
			t.Errorf("lineLocal(/%s/) = %v, want %v", e, got, want)
		}
	}
}
