// Package textfmt lays out contend's text reports: the width of an
// 80-column mail (Width), tables padded to their widest cell (Table) and
// text wrapped at spaces, never inside a word (Wrap, WrapRest, Rewrap: one
// rule, fill); the width of the terminal text goes to (Columns, HelpWidth),
// and tables split into groups of columns to fit it (Table.WriteWidth); a
// short id and the last line of an error output (Cut, LastLine).
package textfmt

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Table is a text table whose columns are padded to fit their widest cell.
// Column 0 is left-aligned, the others right-aligned.
type Table struct {
	rows [][]string
	left map[int]bool
}

// AlignLeft makes the given columns left-aligned.
func (t *Table) AlignLeft(cols ...int) {
	if t.left == nil {
		t.left = map[int]bool{}
	}
	for _, c := range cols {
		t.left[c] = true
	}
}

// Row adds a row.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Write prints the table with two spaces between columns.
func (t *Table) Write(w io.Writer) { t.write(w, t.widths(), nil) }

// WriteWidth prints the table in at most max columns of text: when its
// rows are wider, the columns after the first go in groups, each printed
// as a table of its own that starts with the first column again, as many
// to a group as fit. A column too wide to share a line with the first is
// a group of its own. No cell is ever wrapped.
func (t *Table) WriteWidth(w io.Writer, max int) {
	width := t.widths()
	if len(width) < 2 {
		t.Write(w)
		return
	}
	group, used := []int{}, width[0]
	for i := 1; i < len(width); i++ {
		if len(group) > 0 && used+2+width[i] > max {
			t.write(w, width, group)
			group, used = nil, width[0]
		}
		group = append(group, i)
		used += 2 + width[i]
	}
	t.write(w, width, group)
}

// widths returns the width of every column: its widest cell.
func (t *Table) widths() []int {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			if n := utf8.RuneCountInString(c); n > width[i] {
				width[i] = n
			}
		}
	}
	return width
}

// write prints the first column and the columns cols (nil: all of them).
func (t *Table) write(w io.Writer, width []int, cols []int) {
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 && cols != nil && !slices.Contains(cols, i) {
				continue
			}
			pad := width[i] - utf8.RuneCountInString(c)
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 || t.left[i] {
				b.WriteString(c)
				b.WriteString(strings.Repeat(" ", pad))
			} else {
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Width is the width of contend's text reports: an 80-column mail.
const Width = 80

// Wrap breaks text into lines of at most width runes at spaces (fill,
// as Rewrap); lines after the first start with indent. A word longer
// than a line is never split: it stands on a line of its own.
func Wrap(text string, width int, indent string) []string {
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	return strings.Split(fill(text, lead, indent, width), "\n")
}

// WrapRest breaks s into lines of at most width columns of text; lines
// after the first start with indent, which is not counted (the caller
// prints a prefix as wide before the first line).
func WrapRest(s string, width int, indent string) string {
	lines := Wrap(indent+s, width+len(indent), indent)
	lines[0] = strings.TrimPrefix(lines[0], indent)
	return strings.Join(lines, "\n")
}

// WriteWrapped writes text to w wrapped at Width (Wrap), the lines after
// the first starting with indent.
func WriteWrapped(w io.Writer, text, indent string) {
	for _, l := range Wrap(text, Width, indent) {
		fmt.Fprintln(w, l)
	}
}
