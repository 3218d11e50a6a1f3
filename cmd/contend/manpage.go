package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/manpage"
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
		{"Exit status", "0 on success, 1 when a command fails, 2 for a usage error (a bad flag or value), 130 when interrupted (finished repetitions are saved)."},
		{"See also", "contend help TOPIC; README.md and docs/ in the source tree."},
	}
}

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
