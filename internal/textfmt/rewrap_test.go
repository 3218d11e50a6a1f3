package textfmt

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRewrap checks that a table row continues under its usage column,
// that no word is split and every word is kept, and that short lines
// are left as they are.
func TestRewrap(t *testing.T) {
	row := "   --flag value   " + strings.Repeat("word ", 30)
	got := Rewrap(row+"\nshort\n", 60)
	if strings.Contains(got, "wor\n") || !slices.Equal(strings.Fields(got), strings.Fields(row+" short")) {
		t.Errorf("words split or lost: %q", got)
	}
	lines := strings.Split(got, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], strings.Repeat(" ", 18)+"word") {
		t.Errorf("not under the usage column: %q", got)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("a line of %d runes: %q", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.HasSuffix(got, "\nshort\n") {
		t.Errorf("the short line changed: %q", got)
	}
}

// TestHelpWidthFromColumns checks that COLUMNS sets the width in its range.
func TestHelpWidthFromColumns(t *testing.T) {
	t.Setenv("COLUMNS", "120")
	if w := HelpWidth(); w != 120 {
		t.Errorf("COLUMNS=120: %d", w)
	}
}

// TestRewrapListItem: a list item ("  - text") continues under its text,
// not under its bullet.
func TestRewrapListItem(t *testing.T) {
	got := Rewrap("  - other processes used 89% of a CPU (most: staticcheck, pid 22194, 26%): stop them, or expect their noise", 50)
	lines := strings.Split(got, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "  - other") {
		t.Fatalf("%q", got)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "     ") {
			t.Errorf("not under the item's text: %q", l)
		}
	}
}

// TestColumnsDefault: without COLUMNS, a writer that is not a terminal
// gets the default, and width 0 leaves text unwrapped.
func TestColumnsDefault(t *testing.T) {
	t.Setenv("COLUMNS", "")
	var b strings.Builder
	if w := Columns(&b, 0); w != 0 {
		t.Errorf("not a terminal: %d", w)
	}
	if w := Columns(&b, 80); w != 80 {
		t.Errorf("not a terminal, default 80: %d", w)
	}
	long := strings.Repeat("word ", 40)
	if Rewrap(long, 0) != long {
		t.Error("width 0 wrapped")
	}
	t.Setenv("COLUMNS", "90")
	if w := Columns(&b, 0); w != 90 {
		t.Errorf("COLUMNS=90: %d", w)
	}
}

// TestRewrapCommand: a command line is broken between its shell words,
// never inside quotes, each broken line ending with " \", so that it can
// be copied to a shell as it is; a numbered item hangs after its number.
func TestRewrapCommand(t *testing.T) {
	cmd := "        contend ab exec --metric 'time=time = (\\d+) usecs:us:lower' --a 'examples/bin/pagefault 40 1024' --b 'taskset -c 0 examples/bin/pagefault 40 1024' -n 10 --format lkml"
	for _, width := range []int{60, 80, 100} {
		got := Rewrap(cmd, width)
		lines := strings.Split(got, "\n")
		if len(lines) < 2 {
			t.Fatalf("width %d: not wrapped: %q", width, got)
		}
		var joined []string
		for i, l := range lines {
			if utf8.RuneCountInString(l) > width {
				t.Errorf("width %d: a line of %d: %q", width, utf8.RuneCountInString(l), l)
			}
			if i < len(lines)-1 {
				if !strings.HasSuffix(l, " \\") {
					t.Errorf("width %d: no continuation: %q", width, l)
				}
				l = strings.TrimSuffix(l, " \\")
			}
			joined = append(joined, strings.TrimSpace(l))
			if strings.Count(l, "'")%2 != 0 {
				t.Errorf("width %d: broken inside quotes: %q", width, l)
			}
		}
		if strings.Join(joined, " ") != strings.TrimSpace(cmd) {
			t.Errorf("width %d: the command changed:\n%s", width, got)
		}
	}
	item := Rewrap("   1. the noise of the test here (A/A, this kernel on both sides), which sets the runs", 50)
	if l := strings.Split(item, "\n"); len(l) < 2 || !strings.HasPrefix(l[1], "      ") || strings.HasPrefix(l[1], "       ") {
		t.Errorf("numbered item: %q", item)
	}
}

// TestWrapCommaList: a comma-separated word longer than a line (a
// GODEBUG list) breaks after its commas, never inside an item; a word
// without commas stays whole.
func TestWrapCommaList(t *testing.T) {
	list := "containermaxprocs=0,cryptocustomrand=1,decoratemappings=0,tlssecpmlkem=0,tlssha1=1,updatemaxprocs=0"
	got := Wrap("build.DefaultGODEBUG "+list, 50, "  ")
	joined := ""
	for i, l := range got {
		if utf8.RuneCountInString(l) > 50 {
			t.Errorf("a line of %d: %q", utf8.RuneCountInString(l), l)
		}
		if i > 0 && !strings.HasSuffix(got[i-1], ",") && i > 1 {
			t.Errorf("line %q does not end after a comma", got[i-1])
		}
		joined += strings.TrimSpace(l)
	}
	if joined != "build.DefaultGODEBUG"+list && joined != "build.DefaultGODEBUG "+list {
		t.Errorf("the list changed: %q", got)
	}
	one := strings.Repeat("x", 70)
	if got := Wrap("a "+one, 50, ""); len(got) != 2 || got[1] != one {
		t.Errorf("a word without commas: %q", got)
	}
}
