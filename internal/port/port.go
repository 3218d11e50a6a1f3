// Package port writes the starting file of a contend plugin (contend
// port --template): template.c.in with the plugin's name and its mode's
// worker loop.
package port

import (
	_ "embed"
	"strings"
)

var (
	//go:embed template.c.in
	template string
	//go:embed duration-loop.c.in
	durationLoop string
	//go:embed fixed-loop.c.in
	fixedLoop string
)

// Modes are the modes of a template: duration (loop until stopped,
// count iterations) or fixed (a fixed amount of work, timed).
var Modes = []string{"duration", "fixed"}

// Template returns the C source of plugin name in mode (one of Modes):
// NAME replaced by name, the mode's worker loop in contend_worker.
func Template(name, mode string) string {
	src, loop := template, durationLoop
	if mode == "fixed" {
		src = strings.ReplaceAll(src, "CONTEND_DURATION, \"", "CONTEND_FIXED, \"")
		loop = fixedLoop
	}
	src = strings.ReplaceAll(src, "{{loop}}", strings.TrimSuffix(loop, "\n"))
	return strings.ReplaceAll(src, "NAME", name)
}
