package main

import (
	"contend"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliargs"
	"contend/cmd/contend/internal/cliflag"
	"contend/internal/esc"
	"contend/internal/harness"
	"contend/internal/wisbuild"
	"contend/internal/workload"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks bad command-line input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// Main runs contend with args (args[0] is the program name), writing to
// stdout and stderr, and returns the exit status. It is the one place where
// errors become messages and exit codes.
func Main(args []string, stdout, stderr io.Writer) int {
	defer wisbuild.Cleanup() // the will-it-scale tests compiled for this command
	// Every line contend prints may carry a user string (a label, a
	// parameter, a program's output, a file name): control characters
	// reach the terminal escaped (esc.Writer), whatever printed them.
	eout, eerr := esc.NewWriter(stdout), esc.NewWriter(stderr)
	defer eout.Flush()
	defer eerr.Flush()
	stdout, stderr = eout, eerr
	app := newApp(stdout, stderr)
	// SIGINT and SIGTERM cancel the context from the start, so that no
	// command is ever stopped half-way through writing a file: runs stop
	// after the repetition in flight and exit with 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = takeEarlySignal(ctx) // one that came before this handler (main.go)
	app.Metadata = map[string]any{}
	warnProgramFlags(app, args, stderr) // progflags.go
	err := runArgs(ctx, app, args)
	if name, ok := app.Metadata["notfound"].(string); ok && err == nil {
		err = usagef("no command %q; see 'contend --help'", name)
	}
	err = withHints(app, args, err) // hints.go
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var we *workload.UsageError
	var ke *wisbuild.KilledError
	switch {
	case errors.Is(err, harness.ErrInterrupted):
		fmt.Fprintln(stderr, "contend: interrupted; finished repetitions are saved")
		return exitInterrupted
	case errors.As(err, &ke) && ctx.Err() != nil: // Ctrl-C reached the compiler too
		fmt.Fprintf(stderr, "contend: interrupted: %s\n", err)
		return exitInterrupted
	case errors.As(err, &ue), errors.As(err, &we):
		fmt.Fprintf(stderr, "contend: %s\n", err)
		return exitUsage
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "contend: %s\n", msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(stderr, "contend: %s\n", err)
	return exitFailure
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:        "contend",
		Usage:       "faithful contention micro-benchmarks with honest statistics",
		Version:     contend.FullVersion() + " (native " + contend.NativeHash() + ")",
		Description: helpText("contend"),
		// The help of the app (contend --help, contend help) ends with
		// the help topics.
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + topicsText(),
		Writer:                stdout,
		ErrWriter:             stderr,
		HideHelpCommand:       false,
		EnableBashCompletion:  true,
		ExitErrHandler:        func(*cli.Context, error) {},
		OnUsageError:          cliflag.OnUsageError,
		Commands:              commands(),
		// Our own help command (help.go) stops urfave/cli from adding
		// the --help flag by itself.
		Flags: []cli.Flag{cli.HelpFlag},
	}
	for _, c := range app.Commands {
		cliflag.SetUsageErrors(c)
	}
	app.CommandNotFound = func(c *cli.Context, name string) {
		// Main turns this into exit status 2.
		c.App.Metadata["notfound"] = name
	}
	return app
}

// commands builds every command, in the order they appear in --help:
// first what a newcomer runs (list, run, show, compare), then the other
// ways to run, the machine, the shell; campaign and the hidden
// __complete last.
func commands() []*cli.Command {
	return []*cli.Command{
		listCommand(), runCommand(), showCommand(), compareCommand(), abCommand(), sweepCommand(),
		plotCommand(), execCommand(), importCommand(), verifyCommand(), portCommand(), envCommand(),
		tuneCommand(), checkCommand(), cleanupCommand(), completionCommand(), helpCommand(),
		campaignCommand(), bisectCommand(), reproduceCommand(), reportCommand(), completeCommand(),
	}
}

// runArgs runs the command line args on app as contend reads one: a
// flag given twice with two values refused first (cliargs.Repeated), then the
// flags put before the arguments (reorderArgs). Main and the check of a
// campaign's command both use it.
func runArgs(ctx context.Context, app *cli.App, args []string) error {
	if err := cliargs.Repeated(app, args); err != nil {
		return err
	}
	return app.RunContext(ctx, reorderArgs(app, args))
}

// The reading of command lines (internal/cliargs), under the names the
// commands and their tests use.
var programArgs = cliargs.ProgramArgs

// wordsFlag is a repeatable flag that takes every word after it up to the
// next flag (a cliargs.WordsFlag): compare's --a A1.json A2.json.
type wordsFlag struct{ cli.StringSliceFlag }

// TakesWords marks wordsFlag a cliargs.WordsFlag.
func (*wordsFlag) TakesWords() {}

func reorderArgs(app *cli.App, args []string) []string       { return cliargs.Reorder(app, args) }
func workloadFirst(cmd *cli.Command, args []string) []string { return cliargs.WorkloadFirst(cmd, args) }
func findFlag(cmd *cli.Command, name string) cli.Flag        { return cliargs.FindFlag(cmd, name) }
func takesValue(f cli.Flag) bool                             { return cliargs.TakesValue(f) }
