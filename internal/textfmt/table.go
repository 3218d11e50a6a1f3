// Package textfmt lays out contend's text reports: the width of an
// 80-column mail (Width), tables padded to their widest cell (Table) and
// text wrapped at spaces (Wrap, WrapRest); help rewrapped to the
// terminal's width (Rewrap, HelpWidth); a short id and the last line of
// an error output (Cut, LastLine).
package textfmt

import (
	"fmt"
	"io"
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
func (t *Table) Write(w io.Writer) {
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
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
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

// Wrap breaks text into lines of at most width runes at spaces; lines
// after the first start with indent. A word longer than a line is cut.
func Wrap(text string, width int, indent string) []string {
	var lines []string
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	line := ""
	for _, word := range strings.Fields(text) {
		prefix := lead
		if len(lines) > 0 {
			prefix = indent
		}
		switch {
		case line == "":
			line = prefix + word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
		for utf8.RuneCountInString(line) > width {
			r := []rune(line)
			lines = append(lines, string(r[:width]))
			line = indent + string(r[width:])
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
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
