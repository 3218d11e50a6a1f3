package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/manpage"
	"contend/internal/workload"
)

// manPageSections are the sections of contend.1 after the commands (title,
// text): the workloads and their parameters (from internal/workload), the
// files, the exit statuses.
// The page itself is written by internal/manpage from newApp's commands
// (manApp), in the generator (manpage_gen.go, -tags contend_man) and in
// TestManPageNamesEverything; nothing of the contend binary calls them.
func manPageSections() [][2]string {
	var w strings.Builder
	for _, wl := range workload.All() {
		fmt.Fprintf(&w, "%s: %s\n", wl.Name, wl.Summary)
		for _, p := range wl.Params {
			def := p.Default
			if p.DefaultText != "" {
				def = p.DefaultText
			}
			fmt.Fprintf(&w, "    --%s (default %s): %s\n", p.Name, def, p.Usage)
		}
		w.WriteString("\n")
	}
	w.WriteString("'contend help WORKLOAD' tells a workload's provenance and parameters in full.\n")
	return [][2]string{
		{"Workloads", w.String()},
		{"Files", `Result files are JSON lines (one header line, then one line per repetition), named .jsonl by default; 'contend show --format json FILE' prints one JSON document. Files written without --out go to ./results/.`},
		{"Environment", manEnvironment},
		{"Exit status", fmt.Sprintf("%d on success, %d when a command fails, %d for a usage error (a bad flag or value), %d when another benchmark holds the machine-wide lock and --no-wait refuses to wait, %d when interrupted (finished repetitions are saved).",
			exitOK, exitFailure, exitUsage, exitBusy, exitInterrupted)},
		{"See also", "contend help TOPIC; README.md and docs/ in the source tree."},
	}
}

// manEnvironment is the Environment section of contend.1: every variable
// contend reads (TestManPageNamesEverything checks that it names each
// CONTEND_ variable of the sources, the tests' own aside).
const manEnvironment = `CONTEND_LOCK=FILE: the machine-wide lock file instead of the default (root's /run/contend.lock, else the user's own); CONTEND_LOCK=off runs without it, as --no-lock does.
CONTEND_IPC_DIR=DIR: the journal of SysV sets and tracefs settings that 'contend cleanup' reads, instead of /run/contend (root) or the user's runtime directory.
CONTEND_TRACEFS=DIR: the tracefs of --trace-events and --evidence lock, instead of the machine's.
CONTEND_SYSROOT=DIR: the root under which tune, check and faultme's THP check read /sys and /proc (default /).
CONTEND_TUNE_STATE=FILE: where 'contend tune' saves the values it changed for --reset (default ROOT/var/lib/contend/tune.json).
CONTEND_WIS_TESTS=DIR: will-it-scale's tests directory of 'contend reproduce' (its --tests).
CONTEND_WIS_OBJECTS=DIR: will-it-scale tests compiled beforehand, run instead of compiling (a guest without a compiler).
CONTEND_PLOT_HELPER=FILE: the contend-plot binary 'contend plot' runs (default: next to contend, else on PATH).
CONTEND_FAKE_LIMITS=NAME=N,...: fake machine limits (threads-max, semmsl, ...), for tests of the limit checks.
CONTEND_WIS_DIR, CONTEND_REPORT_FD, CONTEND_SEM_KEY, CONTEND_VM_ENV: set by contend for a repetition's child and for the command it runs in a VM guest; not for users.
NO_COLOR (or TERM=dumb): no colour in a comparison on a terminal.`

// manApp is app's commands and flags as internal/manpage takes them:
// hidden commands and flags and --help left out, a flag's default its
// default text (or value), none for a boolean that is off.
func manApp(app *cli.App) manpage.App {
	return manpage.App{Name: app.Name, Usage: app.Usage, Description: app.Description,
		Flags: manFlags(app.Flags), Commands: manCommands(app.Commands)}
}

// manCommands converts the commands that are not hidden.
func manCommands(cs []*cli.Command) []manpage.Command {
	var out []manpage.Command
	for _, c := range cs {
		if c.Hidden {
			continue
		}
		out = append(out, manpage.Command{Name: c.Name, Aliases: c.Aliases, ArgsUsage: c.ArgsUsage, Usage: c.Usage,
			Description: c.Description, Flags: manFlags(c.Flags), Subcommands: manCommands(c.Subcommands)})
	}
	return out
}

// manFlags converts the flags that are visible, --help left out.
func manFlags(fs []cli.Flag) []manpage.Flag {
	var out []manpage.Flag
	for _, f := range fs {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() || f.Names()[0] == "help" {
			continue
		}
		mf := manpage.Flag{Names: f.Names()}
		if df, ok := f.(cli.DocGenerationFlag); ok {
			mf.TakesValue, mf.Usage = df.TakesValue(), df.GetUsage()
			mf.Default = df.GetDefaultText()
			if mf.Default == "" && mf.TakesValue {
				mf.Default = df.GetValue()
			}
		}
		if mf.Default == `""` || mf.Default == "false" {
			mf.Default = ""
		}
		out = append(out, mf)
	}
	return out
}
