package cliargs

import (
	"strings"
	"testing"
)

// TestProgramFlagsWarning checks the warning for contend's own flags after
// exec's program on the small tree of testApp: named, counted ("is",
// "are"), and nothing after "--", for another command, or where an
// unknown flag leaves the program's start unknown.
func TestProgramFlagsWarning(t *testing.T) {
	app := testApp()
	for _, c := range []struct{ in, want string }{
		{"contend exec ./prog -n 3", "warning: -n after the program ./prog is passed to ./prog"},
		{"contend exec -n 2 ./prog --runs=3 -n 4", "warning: --runs -n after the program ./prog are passed to ./prog"},
		{"contend exec -n 2 -- ./prog -n 3", ""},
		{"contend exec --zz ./prog -n 3", ""},
		{"contend exec ./prog --its-own", ""},
		{"contend run w ./prog -n 3", ""},
		{"contend exec", ""},
	} {
		got := ProgramFlagsWarning(app, strings.Fields(c.in))
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
