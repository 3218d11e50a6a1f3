package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
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
	app := newApp(stdout, stderr)
	// SIGINT and SIGTERM cancel the context from the start, so that no
	// command is ever stopped half-way through writing a file: runs stop
	// after the repetition in flight and exit with 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = takeEarlySignal(ctx) // one that came before this handler (main.go)
	app.Metadata = map[string]any{}
	err := app.RunContext(ctx, reorderArgs(app, args))
	if name, ok := app.Metadata["notfound"].(string); ok && err == nil {
		err = usagef("no command %q; see 'contend --help'", name)
	}
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

// commandFuncs build the commands; each command's file adds its
// constructor in an init function, so that commands stay independent.
var commandFuncs []func() *cli.Command

func addCommand(f func() *cli.Command) { commandFuncs = append(commandFuncs, f) }

// commands builds every command, in the order they appear in --help.
func commands() []*cli.Command {
	order := []string{"list", "run", "show", "compare", "ab", "sweep", "plot", "exec", "import", "verify", "port", "env", "tune", "check", "cleanup", "completion", "help"}
	rank := map[string]int{}
	for i, n := range order {
		rank[n] = i + 1
	}
	var cs []*cli.Command
	for _, f := range commandFuncs {
		cs = append(cs, f())
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ri, rj := rank[cs[i].Name], rank[cs[j].Name]
		if ri == 0 {
			ri = 100
		}
		if rj == 0 {
			rj = 100
		}
		return ri < rj
	})
	return cs
}

func setUsageErrors(c *cli.Command) {
	c.OnUsageError = onUsageError
	for _, s := range c.Subcommands {
		setUsageErrors(s)
	}
}

// onUsageError turns urfave/cli's flag errors into one-line usage errors.
func onUsageError(_ *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usagef("unknown flag --%s; see --help", strings.TrimLeft(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usagef("--%s: needs a value; see --help", strings.TrimLeft(name, "-"))
	}
	if m := invalidValue.FindStringSubmatch(err.Error()); m != nil {
		return usagef("--%s: %q is not accepted: %s", m[2], m[1], m[3])
	}
	return usagef("%s", msg)
}

var invalidValue = regexp.MustCompile(`invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)`)

var negNumber = regexp.MustCompile(`^-[0-9]`)

// reorderArgs moves positional arguments behind the flags of a workload
// subcommand, so that `contend run osim 64 256 1000000 0 0 --format
// original` works although urfave/cli stops parsing flags at the first
// positional argument.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	if args[1] == "compare" {
		return compareArgs(args)
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.Name == args[1] {
			cmd = c
		}
	}
	if cmd != nil && interspersed[cmd.Name] {
		return append(append([]string{}, args[:2]...), reorder(cmd, args[2:])...)
	}
	if cmd == nil || len(cmd.Subcommands) == 0 {
		return args
	}
	args = workloadFirst(cmd, args)
	var sub *cli.Command
	for _, s := range cmd.Subcommands {
		if s.Name == args[2] {
			sub = s
		}
	}
	if sub == nil || verbatim[cmd.Name+" "+sub.Name] {
		return args
	}
	return append(append([]string{}, args[:3]...), reorder(sub, args[3:])...)
}

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
		var sub *cli.Command
		for _, s := range cmd.Subcommands {
			if s.Name == args[i] {
				sub = s
			}
		}
		if sub == nil {
			continue
		}
		prev := args[i-1]
		if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && !isBoolFlag(sub, strings.TrimLeft(prev, "-")) {
			continue
		}
		out := append(append([]string{}, args[:2]...), args[i])
		out = append(out, args[2:i]...)
		return append(out, args[i+1:]...)
	}
	return args
}

// isBoolFlag reports whether cmd has a boolean flag called name.
func isBoolFlag(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if _, ok := f.(*cli.BoolFlag); ok {
			for _, n := range f.Names() {
				if n == name {
					return true
				}
			}
		}
	}
	return false
}

// interspersed names the commands without subcommands whose flags may
// follow their file arguments ('contend plot a.json --out x.svg',
// 'contend import mail.txt --preset faultme').
var interspersed = map[string]bool{"plot": true, "import": true, "show": true}

// verbatim names the subcommands whose arguments are a program and its own
// flags: contend's flags stop at the program's name, as they do for exec.
var verbatim = map[string]bool{"ab exec": true}

// reorder puts the flags of cmd in rest before its positional arguments.
func reorder(sub *cli.Command, rest []string) []string {
	bools := map[string]bool{}
	for _, f := range sub.Flags {
		if _, ok := f.(*cli.BoolFlag); ok {
			for _, n := range f.Names() {
				bools[n] = true
			}
		}
	}
	var flags, pos []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !negNumber.MatchString(a):
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !bools[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	out := flags
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}
