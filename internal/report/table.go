package report

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
