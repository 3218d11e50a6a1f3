package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestTypedFlagErrorsSayTheRange gives numeric flags texts that are not
// numbers: the one-line error names the flag and what it accepts, never
// the flag package's bare "parse error".
func TestTypedFlagErrorsSayTheRange(t *testing.T) {
	dir := chdirTemp(t)
	w, b := seeds+"rostedt-without.json", seeds+"rostedt-with.json"
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"compare", "--alpha", "x", w, b}, "--alpha"},
		{[]string{"compare", "--boot-cost", "soon", w, b}, "--boot-cost"},
		{[]string{"compare", "--boot-cost", "0s", w, b}, "--boot-cost"},
		{[]string{"campaign", "init", "kc", "--boots", "x", "--", "run", "mutex"}, "--boots"},
		{[]string{"campaign", "init", "kc", "--settle-min", "x", "--", "run", "mutex"}, "--settle-min"},
		{[]string{"campaign", "init", "kc", "--settle-load", "x", "--", "run", "mutex"}, "--settle-load"},
		{[]string{"campaign", "init", "kc", "--settle-psi", "lots", "--", "run", "mutex"}, "--settle-psi"},
		{[]string{"run", "semop-multi", "--pin=maybe"}, "--pin"},
		{[]string{"sweep", "faultme", "--threads", "1,2", "--seed", "x"}, "--seed"},
		{[]string{"check", "--interval", "5ms"}, "--interval"},
		{[]string{"tune", "--dry-run", "--perf-rate", "0"}, "--perf-rate"},
		{[]string{"import", "--preset", "faultme", "--from", "0", "x.txt"}, "--from"},
		{[]string{"run", "mutex", "--force=maybe"}, "--force"},
		{[]string{"exec", "--shell=2", "--", "/bin/true"}, "--shell"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runCLI(t, c.args...)
			assertUsageError(t, r, c.flag+": ", dir, listFiles(t, dir))
			if !strings.Contains(r.stderr, "accepted") || strings.Contains(r.stderr, "parse error") {
				t.Errorf("the error does not say what is accepted: %q", r.stderr)
			}
		})
	}
}

// TestReorderReadsEveryFlag puts every flag of every command that takes
// flags anywhere between two positional arguments: reorderArgs must move
// it, with its value when it takes one, before them, knowing each flag
// from the command's own Flags (no list of flag names kept beside them).
func TestReorderReadsEveryFlag(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	n := 0
	for _, cmd := range app.Commands {
		leaves := [][]string{{cmd.Name}}
		targets := []*cli.Command{cmd}
		if len(cmd.Subcommands) > 0 {
			leaves, targets = nil, nil
			for _, s := range cmd.Subcommands {
				leaves, targets = append(leaves, []string{cmd.Name, s.Name}), append(targets, s)
			}
		}
		for i, target := range targets {
			path := leaves[i]
			if target.SkipFlagParsing || programArgs[strings.Join(path, " ")] {
				continue
			}
			for _, f := range target.Flags {
				name := f.Names()[0]
				args := append(append([]string{"contend"}, path...), "p1", "--"+name, "v", "p2")
				var want []string
				switch {
				case isWords(f):
					want = []string{"--" + name, "v", "--" + name, "p2", "--", "p1"}
				case takesValue(f):
					want = []string{"--" + name, "v", "--", "p1", "p2"}
				default:
					want = []string{"--" + name, "--", "p1", "v", "p2"}
				}
				want = append(append([]string{"contend"}, path...), want...)
				if got := reorderArgs(app, args); !slices.Equal(got, want) {
					t.Errorf("%s:\n got %s\nwant %s", strings.Join(args, " "), strings.Join(got, " "), strings.Join(want, " "))
				}
				n++
			}
		}
	}
	if n < 300 {
		t.Errorf("only %d flags tried", n)
	}
	// A program's own flags stay with it.
	for _, args := range [][]string{{"contend", "exec", "/bin/echo", "-n", "x"}, {"contend", "ab", "exec", "--aa", "/bin/echo", "-n", "x"}} {
		if got := reorderArgs(app, args); !slices.Equal(got, args) {
			t.Errorf("%q reordered to %q", args, got)
		}
	}
	// Negative numbers are osim's positional arguments, not flags.
	got := reorderArgs(app, strings.Fields("contend run osim -1 8 100 0 0 -n 2"))
	if want := "contend run osim -n 2 -- -1 8 100 0 0"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}

func isWords(f cli.Flag) bool {
	_, ok := f.(*wordsFlag)
	return ok
}
