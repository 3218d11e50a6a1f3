package main

import (
	"embed"
	"strings"
)

// The descriptions of the commands that run repetitions and of the
// machine's commands (run, ab, ab exec, sweep, exec, verify, port,
// cleanup, tune, env), as --help prints them: desc/NAME.txt.
//
//go:embed desc/*.txt
var descFS embed.FS

// desc returns the description of the command whose text is
// desc/NAME.txt, without its last newline.
func desc(name string) string {
	b, err := descFS.ReadFile("desc/" + name + ".txt")
	if err != nil {
		panic("contend: no description " + name + ": " + err.Error())
	}
	return strings.TrimSuffix(string(b), "\n")
}
