package main

import (
	"fmt"
	"strings"

	"contend/internal/workload"
)

// manPageSections are the sections of contend.1 after the commands (title,
// text): the workloads and their parameters (from internal/workload), the
// files, the exit statuses.
// The page itself is written by internal/manpage from newApp's commands,
// in the generator (manpage_gen.go, -tags contend_man) and in
// TestManPageNamesEverything: the contend binary does not link that
// package.
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
