package main

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHelpWrapsAtWords: at 120 columns 'contend help exec' and 'help
// import' (whose option tables ran to 200 columns, broken mid-word by the
// terminal) have no line longer than 120 and the same words, in the same
// order, as unwrapped.
func TestHelpWrapsAtWords(t *testing.T) {
	for _, cmd := range []string{"exec", "import", "run", "ab"} {
		t.Setenv("COLUMNS", "1000")
		wide := runCLI(t, "help", cmd)
		t.Setenv("COLUMNS", "120")
		narrow := runCLI(t, "help", cmd)
		if wide.code != 0 || narrow.code != 0 {
			t.Fatalf("help %s: exit %d, %d", cmd, wide.code, narrow.code)
		}
		long := 0
		for _, l := range strings.Split(wide.stdout, "\n") {
			if utf8.RuneCountInString(l) > 120 {
				long++
			}
		}
		if cmd == "exec" && long == 0 {
			t.Errorf("help exec at 1000 columns has no line over 120: the test tests nothing")
		}
		for _, l := range strings.Split(narrow.stdout, "\n") {
			if utf8.RuneCountInString(l) > 120 && len(strings.Fields(l)) > 1 {
				t.Errorf("help %s: a line of %d columns: %q", cmd, utf8.RuneCountInString(l), l)
			}
		}
		// A command broken over lines ends each but its last with the
		// shell's continuation, " \".
		cont := func(w string) bool { return w == "\\" }
		if !slices.Equal(slices.DeleteFunc(strings.Fields(wide.stdout), cont), slices.DeleteFunc(strings.Fields(narrow.stdout), cont)) {
			t.Errorf("help %s: the words differ once wrapped", cmd)
		}
	}
}
