package main

import (
	"io"
	"strings"
	"testing"

	"contend/cmd/contend/internal/cliargs"
)

// TestRepeatedFlagPasses: what cliargs.Repeated must let through: repeatable
// flags (exec's --metric, sweep's --param, compare's --a/--b), the same
// value twice, a value given as --flag=value and as -n V alike, and
// anything a program is given (exec and ab exec stop at the program, every
// command at --). And the refusals, whatever the spelling.
func TestRepeatedFlagPasses(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	pass := [][]string{
		{"exec", "-m", "a=x", "-m", "b=y", "--", "/bin/true"},
		{"exec", "--metric=a=x", "--metric", "b=y", "/bin/true"},
		{"exec", "-n", "3", "/bin/echo", "-n", "4", "-n", "5"},
		{"exec", "-n", "3", "--", "/bin/echo", "-n", "4"},
		{"ab", "exec", "-n", "3", "--", "/bin/echo", "-n", "4"},
		{"ab", "exec", "--a", "x", "--b", "y", "-n", "3", "--runs=3"},
		{"sweep", "faultme", "--param", "threads=1,2", "--param", "mem=1MiB,2MiB"},
		{"compare", "--a", "x.json", "y.json", "--b", "z.json", "--a", "w.json"},
		{"run", "faultme", "--threads", "4", "--threads=4"},
		{"run", "faultme", "--label", "--threads 8", "--threads", "4"},
		{"run", "faultme", "--threads", "4", "--", "--threads", "8"},
		{completeArg, "run", "faultme", "--threads", "4", "--threads", ""},
		{"run", "faultme", "--threads", "4", "--threads", "8", "--help"},
	}
	for _, args := range pass {
		if err := cliargs.Repeated(app, append([]string{"contend"}, args...)); err != nil {
			t.Errorf("%q: %v; want it taken", args, err)
		}
	}
	refuse := map[string][]string{
		"-n":        {"exec", "--runs=3", "-n", "4", "/bin/true"},
		"--runs":    {"exec", "-n", "3", "--runs=4", "/bin/true"},
		"--threads": {"run", "--threads", "4", "faultme", "--threads=8"},
		"--mem":     {"sweep", "faultme", "--mem", "1MiB", "--param", "threads=1,2", "--mem", "2MiB"},
		"--a":       {"ab", "faultme", "--a", "--threads 2", "--a=--threads 3", "--b", "--threads 1"},
		"-a":        {"ab", "faultme", "--a", "--threads 2", "-a", "--threads 3", "--b", "--threads 1"},
		"--n":       {"run", "faultme", "-n", "3", "--n", "4"},
	}
	for name, args := range refuse {
		err := cliargs.Repeated(app, append([]string{"contend"}, args...))
		if err == nil || !strings.HasPrefix(err.Error(), name+": given twice") {
			t.Errorf("%q: %v; want %s: given twice", args, err, name)
		}
	}
}
