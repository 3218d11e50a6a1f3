package main

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/lock"
	"contend/internal/tune"
	"contend/internal/value"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "is this machine ready for a benchmark? tune state, load, isolated CPUs, SMT, frequency, throttling",
		ArgsUsage: " ",
		Description: `Shows in one screen what makes runs noisy here and what to do about it:
what 'contend tune' would change, the load and the processes that used CPU
during a short interval (from /proc/PID/stat), isolated CPUs (isolcpus,
nohz_full), SMT, the frequency range, thermal throttling counters where
readable, and who holds the benchmark lock; then advice in words.

Examples:
   contend check
   contend check --interval 2s --cpus 1-3`,
		Flags: []cli.Flag{
			newFlag("interval", &value.Duration{D: 500 * time.Millisecond, Min: 10 * time.Millisecond, Max: time.Minute}, "how long to watch the processes' CPU use, from 10ms to 1m"),
			&cli.StringFlag{Name: "cpus", Usage: "benchmark CPUs, as for 'contend tune'"},
		},
		Action: checkAction,
	}
}

func checkAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("check takes no arguments (got %q); see 'contend help check'", strings.Join(c.Args().Slice(), " "))
	}
	iv := c.Value("interval").(time.Duration)
	root := tune.Root()
	opt, err := tuneOptions(c, root)
	if err != nil {
		return err
	}
	r := tune.CheckMachine(root, opt, iv)
	holder := ""
	if h, held := lock.Current(lock.Path()); held {
		holder = h.String()
	}
	tune.WriteCheck(c.App.Writer, r, iv, holder)
	return nil
}
