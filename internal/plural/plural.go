// Package plural writes a count with its noun for people: "1 file", "2
// files", "0 files". Messages that print a count which can be 1 use it
// rather than "%d files" ("has 1 files").
package plural

import "strconv"

// N is n followed by one when n is 1 (or -1), else by many: N(1, "file",
// "files") is "1 file", N(3, "file", "files") "3 files". one and many may
// carry more words ("more metric is", "more metrics are").
func N(n int, one, many string) string {
	if n == 1 || n == -1 {
		return strconv.Itoa(n) + " " + one
	}
	return strconv.Itoa(n) + " " + many
}
