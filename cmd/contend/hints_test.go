package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHintsNameWhatWasTyped: usage errors name the flag as it was typed
// and what was probably meant (each case printed something less on the
// old code: "unknown flag --n3", "no parameter --n", no "did you mean",
// no quotes, "got 1" alone).
func TestHintsNameWhatWasTyped(t *testing.T) {
	ab, err := filepath.Abs(seeds + "mitake-ab.json")
	if err != nil {
		t.Fatal(err)
	}
	chdirTemp(t)
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"one-letter flag glued to its value", []string{"run", "faultme", "-n3"},
			[]string{"unknown flag -n3; did you mean -n 3?"}},
		{"ab's own flag inside --a", []string{"ab", "faultme", "--a", "-n 4 --threads 2"},
			[]string{"--a: faultme has no parameter -n; -n is a flag of ab itself", "contend ab faultme -n 4 --a '--threads 2'"}},
		{"a side's flags without quotes", []string{"ab", "faultme", "--a", "--threads", "4"},
			[]string{`takes no positional arguments (got "4")`, "--a takes the side's flags as one quoted argument: --a '--threads 4'"}},
		{"compare of one ab file", []string{"compare", ab},
			[]string{"got 1", "is an ab file: compare its sides with 'contend compare " + ab + ":a " + ab + ":b'"}},
		{"mistyped command", []string{"rnu", "faultme"}, []string{`no command "rnu"; did you mean run?`}},
		{"mistyped workload", []string{"run", "faultmee"}, []string{`no workload "faultmee" (did you mean faultme?)`}},
		{"mistyped flag", []string{"run", "faultme", "--thread", "3"}, []string{"unknown flag --thread; did you mean --threads?"}},
		{"mistyped flag of a command", []string{"compare", "--metrc", "time", "a", "b"}, []string{"unknown flag --metrc; did you mean --metric?"}},
		{"mistyped side parameter", []string{"ab", "faultme", "--a", "--thread 4"}, []string{"--a: faultme has no parameter --thread; did you mean --threads?"}},
		{"mistyped help topic", []string{"help", "faultmee"}, []string{`help: no command or workload "faultmee" (did you mean faultme?)`}},
		{"mistyped help topic (a topic)", []string{"help", "maxrs"}, []string{`(did you mean maxrss?)`}},
		{"mistyped subcommand", []string{"campaign", "int"}, []string{`campaign has no subcommand "int"; did you mean init? (see 'contend campaign --help')`}},
		{"nothing near", []string{"run", "faultme", "--zzzzzz"}, []string{"unknown flag --zzzzzz; see 'contend run faultme --help'"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, c.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q lacks %q", r.stderr, w)
				}
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("not one line: %q", r.stderr)
			}
		})
	}
}
