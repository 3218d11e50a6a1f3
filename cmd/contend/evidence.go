package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/evidence"
	"contend/internal/textfmt"
)

func evidenceFlag() cli.Flag {
	return &cli.StringFlag{Name: "evidence", Value: "default", Usage: "kernel evidence collected with every repetition: default, none, or a list such as lock or perf,sched (see 'contend help evidence')"}
}

// parseEvidence reads --evidence.
func parseEvidence(c *cli.Context) ([]string, error) {
	names, err := evidence.Parse(c.String("evidence"))
	if err != nil {
		return nil, usagef("%v", err)
	}
	return names, nil
}

// writeEvidenceHelp prints `contend help evidence`.
func writeEvidenceHelp(w io.Writer) {
	head, tail, _ := strings.Cut(helpText("evidence")+"\n", "{{collectors}}\n")
	fmt.Fprint(w, head)
	for _, d := range evidence.Docs() {
		tag := ""
		if d.Default {
			tag = " (default)"
		}
		fmt.Fprintf(w, "%s%s\n", d.Name, tag)
		for _, l := range textfmt.Wrap(d.Text, textfmt.Width-4, "") {
			fmt.Fprintln(w, "  "+strings.TrimLeft(l, " "))
		}
		for _, m := range d.Metrics {
			unit := m.Unit
			fmt.Fprintf(w, "    %s [%s]\n", m.Name, unit)
			for _, l := range textfmt.Wrap(m.Desc, textfmt.Width-8, "") {
				fmt.Fprintln(w, "        "+l)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, tail)
}
