package main

import (
	"bytes"
	"io"

	"github.com/urfave/cli/v2"

	"contend/internal/textfmt"
)

// Help text is wrapped at word boundaries to the terminal's width
// (textfmt.HelpWidth): urfave/cli aligns the option tables with a tabwriter and
// wraps nothing, so 'contend help exec' printed lines of 200 columns that
// a 120-column terminal broke mid-word.
func init() { cli.HelpPrinter = wrappedHelp }

// wrappedHelp is cli.HelpPrinter: urfave/cli's output, rewrapped.
func wrappedHelp(w io.Writer, templ string, data any) {
	var b bytes.Buffer
	cli.HelpPrinterCustom(&b, templ, data, nil)
	io.WriteString(w, textfmt.Rewrap(b.String(), textfmt.HelpWidth()))
}
