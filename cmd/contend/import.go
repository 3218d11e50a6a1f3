package main

import (
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/external"
	"contend/internal/logimport"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/summary"
	"contend/internal/value"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:        "import",
		Usage:       "turn a log of an original program's output (a mail, a console log) into a result file",
		ArgsUsage:   "[flags] LOG",
		Description: helpText("import"),
		Flags: append(metricFlags(false),
			newFlag("from", &value.Int{Min: 1, Max: 1<<31 - 1}, "first line of LOG to read (1-based)"),
			newFlag("to", &value.Int{Min: 1, Max: 1<<31 - 1}, "last line of LOG to read (inclusive)"),
			&cli.StringFlag{Name: "select", Usage: "records to keep: N..M, N.., ..M or N (from 1, after --from/--to)"},
			&cli.BoolFlag{Name: "unquote", Usage: "strip mail quoting (\"> \") from line starts"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "result file (default results/import-PRESET-DATE-TIME.jsonl); an existing file is refused unless --replace"},
			&cli.BoolFlag{Name: "replace", Usage: "overwrite an existing --out file"},
			&cli.StringFlag{Name: "label", Usage: "free text stored with the results, such as 'rt6 with patch'"},
			formatFlag("output: text or json", "text", "json"),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no warnings on stderr"},
		),
		Action:      runImport,
		Subcommands: []*cli.Command{importMmtestsCommand()},
	}
}

func runImport(c *cli.Context) error {
	specs, primary, name, err := importSpecs(c)
	if err != nil {
		return err
	}
	opt := logimport.Options{From: c.Value("from").(int), To: c.Value("to").(int), // 0: not given
		Select: c.String("select"), Selected: c.IsSet("select"), Unquote: c.Bool("unquote")}
	log, err := logimport.Read(c.Args().First(), os.Stdin, specs, opt)
	if err != nil {
		return &usageError{err.Error()}
	}
	f := run.ExternalFile("import", name, log.Specs, primary, c.String("label"))
	f.Env = captureEnv()
	f.Configs, f.Warnings = []results.Config{log.Config()}, log.Warnings
	f.End, f.Complete = time.Now(), true
	mode, err := outMode(c)
	if err != nil {
		return err
	}
	// The records go to the file one at a time as they are made, counted
	// in a Tally for the summary; --format json prints them all, so only
	// then are they held.
	tally := results.NewTally(0)
	var reps iter.Seq[*results.Rep]
	if c.String("format") == "json" {
		f.Reps = log.AllReps(tally)
	} else {
		reps = log.Reps(tally)
	}
	wr, err := openOut(c.String("out"), name, f, mode, reps)
	if err != nil {
		return err
	}
	defer wr.Close()
	return importSummary(c, wr, log.Warnings, tally)
}

// importSpecs returns the metrics import reads (--preset, --metric), the
// primary one and the file's workload name, and checks the one argument.
func importSpecs(c *cli.Context) ([]external.Spec, string, string, error) {
	specs, primary, name, err := external.ImportMetrics(c.String("preset"), c.StringSlice("metric"))
	if err != nil {
		return nil, "", "", err
	}
	if c.NArg() != 1 {
		return nil, "", "", usagef("import takes one log file (or -), got %d arguments", c.NArg())
	}
	return specs, primary, name, nil
}

// importSummary prints the warnings (unless --quiet), the file (json) or
// its summary, and the file's name; no successful record is a failure.
func importSummary(c *cli.Context, wr *results.Writer, warns []string, tally *results.Tally) error {
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if !c.Bool("quiet") {
		for _, w := range warns {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	if c.String("format") == "json" {
		b, err := results.Marshal(wr.File)
		if err != nil {
			return err
		}
		stdout.Write(b)
	} else {
		summary.SummaryOf(stdout, wr.File, tally)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(stderr, "results: %s\n", wr.Path())
	}
	if tally.Counts[results.StatusOK] == 0 {
		return cli.Exit("no complete record in the log", exitFailure)
	}
	return nil
}
