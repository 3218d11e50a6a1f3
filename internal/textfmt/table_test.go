package textfmt

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	got := Wrap("  one two three four five", 12, "    ")
	want := []string{"  one two", "    three", "    four", "    five"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	// A word longer than a line stands on its own line, whole (it was
	// cut into pieces of the width).
	long := Wrap("a "+strings.Repeat("x", 25)+" b", 10, "  ")
	if want := []string{"a", "  " + strings.Repeat("x", 25), "  b"}; !slices.Equal(long, want) {
		t.Errorf("long word: %q, want %q", long, want)
	}
}

// TestWrapNeverSplitsWords: at any width, the words of Wrap's and
// Rewrap's lines are the text's words, each whole, and no line is wider
// than the width unless it is one word.
func TestWrapNeverSplitsWords(t *testing.T) {
	text := "warning: threads=16 oversubscribes the 2 online CPUs: the extra threads are time-sliced, not concurrent; see /sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
	for _, width := range []int{20, 40, 80, 100} {
		lines := Wrap(text, width, "  ")
		re := Rewrap(text, width)
		if !slices.Equal(strings.Fields(strings.Join(lines, " ")), strings.Fields(text)) || !slices.Equal(strings.Fields(re), strings.Fields(text)) {
			t.Errorf("width %d: words changed:\n%q\n%q", width, lines, re)
		}
		for _, l := range append(lines, strings.Split(re, "\n")...) {
			if utf8.RuneCountInString(l) > width && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: a line of %d: %q", width, utf8.RuneCountInString(l), l)
			}
		}
	}
}

// TestTableWriteWidth: a table wider than the width is printed as groups
// of columns, each starting with the first column and at most the width
// wide, every cell whole and in its row; at a width it fits, as Write.
func TestTableWriteWidth(t *testing.T) {
	tb := &Table{}
	head := []string{"threads"}
	for i := range 9 {
		head = append(head, fmt.Sprintf("k.sys.metric_%d", i))
	}
	tb.Row(head...)
	for _, x := range []string{"1", "2", "16"} {
		row := []string{x}
		for i := range 9 {
			row = append(row, fmt.Sprintf("%s.%d ms", x, i))
		}
		tb.Row(row...)
	}
	var whole bytes.Buffer
	tb.Write(&whole)
	for _, width := range []int{80, 100} {
		var b bytes.Buffer
		tb.WriteWidth(&b, width)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines)%4 != 0 || len(lines)/4 < 2 {
			t.Fatalf("width %d: %d lines, want groups of 4:\n%s", width, len(lines), b.String())
		}
		cells := map[string]bool{}
		for i, l := range lines {
			if utf8.RuneCountInString(l) > width {
				t.Errorf("width %d: a line of %d: %q", width, utf8.RuneCountInString(l), l)
			}
			f := strings.Fields(strings.ReplaceAll(l, " ms", "_ms"))
			if want := []string{"threads", "1", "2", "16"}[i%4]; f[0] != want {
				t.Errorf("width %d: line %d starts %q, want %q", width, i, f[0], want)
			}
			for _, c := range f[1:] {
				if i%4 > 0 && !strings.HasPrefix(c, f[0]+".") {
					t.Errorf("width %d: %q in the row of %s", width, c, f[0])
				}
				cells[c] = true
			}
		}
		if len(cells) != 9*4 {
			t.Errorf("width %d: %d distinct cells, want 36", width, len(cells))
		}
	}
	var b bytes.Buffer
	tb.WriteWidth(&b, 1000)
	if b.String() != whole.String() {
		t.Errorf("at a width it fits, WriteWidth differs from Write:\n%s", b.String())
	}
}

func TestTable(t *testing.T) {
	tb := &Table{}
	tb.AlignLeft(1)
	tb.Row("metric", "unit", "value")
	tb.Row("time", "ns", "1.5")
	tb.Row("contended", "count", "1200")
	var b strings.Builder
	tb.Write(&b)
	want := "metric     unit   value\ntime       ns       1.5\ncontended  count   1200\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", b.String(), want)
	}
}
