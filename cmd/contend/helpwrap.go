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

// writeWrapped writes what write prints to w, wrapped to the width of the
// terminal w is (textfmt.Columns; as it is into a file or a pipe) by
// textfmt.Rewrap, the rule help is wrapped by: check's report and
// reproduce's plan.
func writeWrapped(w io.Writer, write func(io.Writer)) {
	var b bytes.Buffer
	write(&b)
	io.WriteString(w, textfmt.Rewrap(b.String(), textfmt.Columns(w, 0)))
}
