// Package suggest finds what a user probably meant by a mistyped word: the
// candidate nearest in edit distance, for "did you mean" in messages.
package suggest

import "strings"

// Distance is the Levenshtein distance of a and b (insertions, deletions
// and substitutions of runes), with a swap of two adjacent runes counted
// as one edit (optimal string alignment), compared without case.
func Distance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// Three rows: the one before the previous, the previous, this one.
	pp := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(y)]
}

// Closest returns the candidate nearest to word, if one is near enough to
// be what was meant: at most 2 edits and fewer than half of word's length
// (so that a short word is not "corrected" into any other), or else word
// (3 runes or more) being a prefix of exactly one candidate. Ties go to
// the first candidate.
func Closest(word string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := Distance(word, c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	n := len([]rune(word))
	if bestD >= 0 && bestD <= 2 && 2*bestD < n {
		return best, true
	}
	if n >= 3 {
		var only string
		count := 0
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), strings.ToLower(word)) && c != word {
				only = c
				count++
			}
		}
		if count == 1 {
			return only, true
		}
	}
	return "", false
}
