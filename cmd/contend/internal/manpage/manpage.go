// Package manpage writes a roff man page (man(7) macros) from a program's
// commands and flags: contend.1, generated at build time by cmd/contend
// built with -tags contend_man, which gives it the urfave/cli commands as
// Commands (only cmd/contend knows urfave/cli). Nothing of the contend
// binary calls it: the linker leaves all of it out (go tool nm shows
// none of its symbols).
package manpage

import (
	"fmt"
	"io"
	"strings"
)

// Page is what the page says beside the commands: its section, date,
// version and the sections written after COMMANDS (titles and plain text).
type Page struct {
	Section string // "1"
	Date    string // such as "2026-12-01"
	Version string
	Extra   []Section
}

// Section is one titled section of plain text; paragraphs are separated by
// blank lines, and lines starting with spaces are kept as they are.
type Section struct {
	Title string
	Text  string
}

// Command is one command of the page: its name, the words of its
// arguments, a one-line usage, a description (plain text, see block), its
// flags and subcommands. Hidden commands are not given.
type Command struct {
	Name        string
	Aliases     []string
	ArgsUsage   string
	Usage       string
	Description string
	Flags       []Flag
	Subcommands []Command
}

// Flag is one option: its names (one letter: -n, else --name), whether it
// takes a value, its usage and default text ("" for none).
type Flag struct {
	Names      []string
	TakesValue bool
	Usage      string
	Default    string
}

// App is the program the page describes.
type App struct {
	Name, Usage, Description string
	Flags                    []Flag
	Commands                 []Command
}

// Write writes app's man page to w: NAME, SYNOPSIS, DESCRIPTION, the global
// options, then every command (subcommands under their parent) with its
// usage, description and flags, then p.Extra.
func Write(w io.Writer, app App, p Page) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %s %s %s %s\n", quote(strings.ToUpper(app.Name)), quote(p.Section), quote(p.Date), quote(app.Name+" "+p.Version), quote("User Commands"))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", text(app.Name), text(app.Usage))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n.I command\n[\\fIoptions\\fR] [\\fIarguments\\fR]\n", text(app.Name))
	if app.Description != "" {
		b.WriteString(".SH DESCRIPTION\n")
		block(&b, app.Description)
	}
	if len(app.Flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		flags(&b, app.Flags)
	}
	b.WriteString(".SH COMMANDS\n")
	for _, c := range app.Commands {
		command(&b, c, app.Name)
	}
	for _, s := range p.Extra {
		fmt.Fprintf(&b, ".SH %s\n", quote(strings.ToUpper(s.Title)))
		block(&b, s.Text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// command writes c (and its subcommands) as a subsection.
func command(b *strings.Builder, c Command, parent string) {
	full := parent + " " + c.Name
	fmt.Fprintf(b, ".SS %s\n", quote(full+" "+c.ArgsUsage))
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Also: %s.\n.PP\n", text(strings.Join(c.Aliases, ", ")))
	}
	if c.Usage != "" {
		fmt.Fprintf(b, "%s\n", text(c.Usage))
	}
	if c.Description != "" {
		b.WriteString(".PP\n")
		block(b, c.Description)
	}
	if len(c.Flags) > 0 {
		b.WriteString(".PP\nOptions:\n")
		flags(b, c.Flags)
	}
	for _, s := range c.Subcommands {
		command(b, s, full)
	}
}

// flags writes fs as tagged paragraphs: the names (and VALUE for a flag
// that takes one), then the usage and default.
func flags(b *strings.Builder, fs []Flag) {
	for _, f := range fs {
		var names []string
		for _, n := range f.Names {
			if len(n) == 1 {
				names = append(names, "\\-"+text(n))
			} else {
				names = append(names, "\\-\\-"+text(n))
			}
		}
		tag := "\\fB" + strings.Join(names, "\\fR, \\fB") + "\\fR"
		if f.TakesValue {
			tag += " \\fIVALUE\\fR"
		}
		fmt.Fprintf(b, ".TP\n%s\n", tag)
		line := text(f.Usage)
		if f.Default != "" {
			line += " (default: " + text(f.Default) + ")"
		}
		fmt.Fprintf(b, "%s\n", line)
	}
}

// block writes plain text: paragraphs as .PP, indented lines (examples,
// tables) verbatim in no-fill mode.
func block(b *strings.Builder, s string) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	nofill := false
	for i, l := range lines {
		indented := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		switch {
		case strings.TrimSpace(l) == "":
			if nofill {
				b.WriteString(".fi\n")
				nofill = false
			}
			if i > 0 {
				b.WriteString(".PP\n")
			}
			continue
		case indented && !nofill:
			b.WriteString(".nf\n")
			nofill = true
		case !indented && nofill:
			b.WriteString(".fi\n")
			nofill = false
		}
		b.WriteString(text(l) + "\n")
	}
	if nofill {
		b.WriteString(".fi\n")
	}
}

// text escapes s for roff: backslashes, dashes that must stay ASCII
// hyphen-minus, and a line start that roff would read as a request.
func text(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// quote is s as one macro argument.
func quote(s string) string {
	return `"` + strings.ReplaceAll(text(strings.TrimSpace(s)), `"`, `\(dq`) + `"`
}
