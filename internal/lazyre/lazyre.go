// Package lazyre compiles regular expressions on first use, not at
// package init: every start of contend pays for the package-level
// variables of every package it links, the repetition child's start
// included (scripts/bench-startup.sh), and most expressions serve one
// rare path (a usage error's hint, a robot mail, a QEMU version).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr (regexp.MustCompile) on its
// first call and returns the same *regexp.Regexp on every call.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
