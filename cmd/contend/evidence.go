package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/evidence"
	"contend/internal/results"
)

func evidenceFlag() cli.Flag {
	return &cli.StringFlag{Name: "evidence", Value: "default", Usage: "kernel evidence collected with every repetition: default, none, or a list such as lock or perf,sched (see 'contend help evidence')"}
}

// parseEvidence reads --evidence.
func parseEvidence(c *cli.Context) ([]string, error) {
	names, err := evidence.Parse(c.String("evidence"))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return names, nil
}

// withEvidence opens the collectors of opt.evidence, adds their metrics
// and availability to f (before the file is created), and returns the
// command's context carrying them and the function that closes them
// (restoring any tracefs setting), to be deferred.
func withEvidence(c *cli.Context, opt repOptions, f *results.File) (context.Context, func()) {
	set := evidence.Open(opt.evidence)
	for _, m := range set.Metrics() {
		if _, dup := f.Metric(m.Name); !dup {
			f.Metrics = append(f.Metrics, m)
		}
	}
	f.Evidence = set.Header()
	stderr := c.App.ErrWriter
	if !opt.quiet {
		for _, n := range opt.evidence {
			// The opt-in collectors were asked for: say at once when
			// they cannot work (the others are in the file's header).
			if v := set.Avail[n]; n == "lock" && strings.HasPrefix(v, "not available") {
				fmt.Fprintf(stderr, "warning: --evidence %s: %s\n", n, v)
			}
		}
	}
	return evidence.NewContext(c.Context, set), func() {
		if err := set.Close(); err != nil {
			fmt.Fprintf(stderr, "contend: %v\n", err)
		}
	}
}
