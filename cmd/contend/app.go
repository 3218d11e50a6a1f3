package main

import (
	"contend/internal/esc"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"contend"
	"contend/internal/harness"
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
	switch {
	case errors.Is(err, harness.ErrInterrupted):
		fmt.Fprintln(stderr, "contend: interrupted; finished repetitions are saved")
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
		Name:    "contend",
		Usage:   "faithful contention micro-benchmarks with honest statistics",
		Version: contend.Version + " (native " + contend.NativeHash() + ")",
		Description: `contend reproduces the small C programs that Linux kernel discussions about
lock, IPC and page-fault contention were settled with, runs each repetition
in a fresh process, records every run with its environment, and compares
runs with statistics.

   contend list                              the workloads
   contend help faultme                      one workload: provenance, parameters
   contend run faultme --threads 40 --mem 1GiB -n 6 --out before.json
   contend compare before.json after.json    is the difference real?
   contend ab mutex --trace-events lock -n 10    A/B interleaved in one boot
   contend sweep faultme --threads 1..8x2 -n 6   a scalability curve, fitted
   contend env                               this machine's fingerprint`,
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      false,
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         onUsageError,
		Commands:             commands(),
		// Our own help command (help.go) stops urfave/cli from adding
		// the --help flag by itself.
		Flags: []cli.Flag{cli.HelpFlag},
	}
	for _, c := range app.Commands {
		setUsageErrors(c)
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
		campaignCommand(), bisectCommand(), completeCommand(),
	}
}

// setUsageErrors gives c and its subcommands onUsageError (urfave/cli
// takes a command's own OnUsageError only, none from the App).
func setUsageErrors(c *cli.Command) {
	c.OnUsageError = onUsageError
	for _, s := range c.Subcommands {
		setUsageErrors(s)
	}
}

// onUsageError turns urfave/cli's flag errors into one-line usage errors.
// A typed flag's refused value (valueFlag) comes with its own error,
// naming the flag and the accepted range. Otherwise the error is one of
// the flag package's texts, which carry no type: an unknown flag and a
// flag without its value are said in contend's words (urfave/cli reads
// the first one's text too, in parseIter), anything else as it is.
func onUsageError(c *cli.Context, err error, _ bool) error {
	if ve := refusedValue(c); ve != nil {
		return ve
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usagef("unknown flag %s; see --help", dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usagef("%s: needs a value; see --help", dashed(name))
	}
	// The flag package's: invalid boolean value "maybe" for -force: parse error.
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if i := strings.LastIndex(rest, " for -"); i >= 0 {
			name, _, _ := strings.Cut(rest[i+len(" for -"):], ":")
			return usagef("--%s: %s is not accepted; accepted: true or false (or the flag alone)", name, rest[:i])
		}
	}
	return usagef("%s", msg)
}

// runArgs runs the command line args on app as contend reads one: a
// flag given twice with two values refused first (repeatedFlag), then the
// flags put before the arguments (reorderArgs). Main and the check of a
// campaign's command both use it.
func runArgs(ctx context.Context, app *cli.App, args []string) error {
	if err := repeatedFlag(app, args); err != nil {
		return err
	}
	return app.RunContext(ctx, reorderArgs(app, args))
}

// dashed writes a flag name as it is typed: -n for a one-letter name,
// --name otherwise (the flag package writes every name with one dash).
func dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// reorderArgs puts the flags of the command in args before its
// positional arguments, with "--" between them: urfave/cli v2 parses
// flags with Go's flag package, which stops at the first positional
// argument, and contend takes flags anywhere ('contend run osim 64 256
// 1000000 0 0 --format original', 'contend plot a.json --out x.svg',
// 'contend compare a.json --metric time b.json'). Which words are flags,
// which take a value and which take the words after them (compare --a X
// Y) is read from the command's own Flags. A workload given after flags
// is moved first (workloadFirst). Commands whose arguments are a program
// and its own flags (programArgs) and those that parse nothing
// (SkipFlagParsing) are left as they are.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	cmd := app.Command(args[1])
	if cmd == nil || cmd.SkipFlagParsing || programArgs[cmd.Name] {
		return args
	}
	i := 2
	if len(cmd.Subcommands) > 0 {
		args = workloadFirst(cmd, args)
		sub := cmd.Command(args[2])
		if sub == nil || programArgs[cmd.Name+" "+sub.Name] {
			return args
		}
		cmd, i = sub, 3
	}
	return append(append([]string{}, args[:i]...), reorder(cmd, args[i:])...)
}

// programArgs names the commands whose arguments are a program and its
// own flags: contend's flags stop at the program's name.
var programArgs = map[string]bool{"exec": true, "ab exec": true}

// workloadFirst moves a workload (subcommand) name given after flags to its
// place after the command: 'contend run --threads 4 faultme' is taken as
// 'contend run faultme --threads 4'. A word right after a flag that takes
// a value is that flag's value, not the workload.
func workloadFirst(cmd *cli.Command, args []string) []string {
	if len(args) < 3 || !strings.HasPrefix(args[2], "-") || args[2] == "-h" || args[2] == "--help" {
		return args
	}
	for i := 3; i < len(args); i++ {
		if args[i] == "--" {
			break
		}
		sub := cmd.Command(args[i])
		if sub == nil {
			continue
		}
		if prev := args[i-1]; isFlagWord(prev) && !strings.Contains(prev, "=") && takesValue(findFlag(sub, strings.TrimLeft(prev, "-"))) {
			continue
		}
		out := append(append([]string{}, args[:2]...), args[i])
		out = append(out, args[2:i]...)
		return append(out, args[i+1:]...)
	}
	return args
}

// wordsFlag is a repeatable flag that takes every word after it up to the
// next flag: compare's --a A1.json A2.json. reorder makes each word a
// --a WORD of its own, which urfave/cli collects in the StringSlice.
type wordsFlag struct{ cli.StringSliceFlag }

// takesValue reports whether the flag f takes a value (false for a
// boolean flag and for nil, a flag the command does not have).
func takesValue(f cli.Flag) bool {
	df, ok := f.(cli.DocGenerationFlag)
	return ok && df.TakesValue()
}

// isFlagWord reports whether a reads as a flag: a dash and more, and not
// a negative number (osim's positional arguments).
func isFlagWord(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

// reorder puts the flags of cmd in rest before its positional arguments.
func reorder(cmd *cli.Command, rest []string) []string {
	var flags, pos []string
	words := "" // the wordsFlag the words that follow go to
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case !isFlagWord(a) && words != "":
			flags = append(flags, "--"+words, a)
		case !isFlagWord(a):
			pos = append(pos, a)
		default:
			name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := findFlag(cmd, name)
			if _, ok := f.(*wordsFlag); ok {
				words = f.Names()[0]
				if hasVal {
					flags = append(flags, "--"+words, val)
				}
				continue
			}
			flags = append(flags, a)
			if !hasVal && takesValue(f) && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		}
	}
	out := flags
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
