package cliargs

import (
	"strings"
	"testing"
)

// TestRepeated checks on the small tree of testApp that a one-value flag
// given twice with two values is refused in either spelling, and that the
// same value twice, a words flag, a program's arguments and help pass.
func TestRepeated(t *testing.T) {
	app := testApp()
	for in, want := range map[string]string{
		"contend run w --threads 4 --threads=8": `--threads: given twice ("4", then "8"); give it once`,
		"contend run w -t 4 --threads 8":        `--threads: given twice ("4", then "8")`,
		"contend compare --metric a --metric b": `--metric: given twice`,
		"contend run w --threads 4 --threads 4": "",
		"contend compare --a x y --a z --b w":   "",
		"contend exec -n 3 ./prog -n 4 -n 5":    "",
		"contend run w -t 4 -t 8 --help":        "",
		"contend run w -t 4 -- -t 8":            "",
	} {
		err := Repeated(app, strings.Fields(in))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
