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
