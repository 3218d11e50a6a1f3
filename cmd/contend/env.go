package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/bind"
	"contend/internal/env"
)

// captureEnv is env.Capture with the facts only the C side knows (the
// compiler that built native/ and its effective flags): env links no cgo,
// this binary does. Tests replace it.
var captureEnv = func() env.Fingerprint {
	return env.Capture(env.Fingerprint{"cc.version": bind.CCVersion(), "cc.flags": bind.CCFlags()})
}

func envCommand() *cli.Command {
	return &cli.Command{
		Name:  "env",
		Usage: "print this machine's environment fingerprint",
		Description: `Prints the facts that every result file records about the machine it ran
on: kernel release and preemption model, CPU, memory, THP and zero page,
cpufreq governor, virtualisation, SysV and thread limits, compilers; and
how this contend binary was built: build.* (Go's build settings: tags,
CGO_CFLAGS, CGO_ENABLED, GOARCH, compiler, the git revision and whether the
tree was modified, when Go recorded them) and cc.flags (the optimisation the
C compiler really applied, from its own macros: cgo puts CGO_CFLAGS before
the package's -O2, so CGO_CFLAGS=-O0 does not take effect). 'contend
compare' warns when its sides were built differently.

Examples:
   contend env
   contend env --format json`,
		Flags: []cli.Flag{
			formatFlag("text or json", "text", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("env takes no arguments (got %q); see 'contend help env'", strings.Join(c.Args().Slice(), " "))
			}
			f := captureEnv()
			if c.String("format") == "json" {
				return printJSON(c.App.Writer, f)
			}
			for _, k := range f.Keys() {
				fmt.Fprintf(c.App.Writer, "%-19s %s\n", k, wrap(f[k], 59, strings.Repeat(" ", 20)))
			}
			return nil
		},
	}
}
