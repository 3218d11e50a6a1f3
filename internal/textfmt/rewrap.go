package textfmt

import (
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// HelpWidthDefault is the width when neither COLUMNS nor a terminal says.
const HelpWidthDefault = 100

// HelpWidth is $COLUMNS when it is a number from 40 to 1000, else the
// width of the terminal on standard output, else HelpWidthDefault.
func HelpWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 && n <= 1000 {
		return n
	}
	if ws, err := unix.IoctlGetWinsize(int(os.Stdout.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col >= 40 {
		return int(ws.Col)
	}
	return HelpWidthDefault
}

// Rewrap wraps every line of s longer than width at spaces: a table row
// ("   --flag value   usage ...") continues under its usage column, any
// other line under its own indentation. A word longer than a line is
// never split.
func Rewrap(s string, width int) string {
	var out strings.Builder
	lines := strings.SplitAfter(s, "\n")
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if utf8.RuneCountInString(body) <= width {
			out.WriteString(l)
			continue
		}
		out.WriteString(wrapLine(body, width))
		if strings.HasSuffix(l, "\n") {
			out.WriteByte('\n')
		}
	}
	return out.String()
}

// wrapLine wraps one line (see Rewrap).
func wrapLine(l string, width int) string {
	indent := len(l) - len(strings.TrimLeft(l, " "))
	hang := indent
	// A table row: the text after the first run of 2 or more spaces
	// that follows the first column.
	if i := strings.Index(l[indent:], "  "); i > 0 {
		j := indent + i
		for j < len(l) && l[j] == ' ' {
			j++
		}
		if j < len(l) {
			hang = j
		}
	}
	head, rest := l[:hang], l[hang:]
	if hang == indent {
		head, rest = l[:indent], l[indent:]
	}
	if width-utf8.RuneCountInString(head) < 30 {
		// Too little room beside the first column: the text goes
		// under it, indented.
		var b strings.Builder
		b.WriteString(strings.TrimRight(head, " "))
		pad := strings.Repeat(" ", indent+6)
		b.WriteString("\n")
		b.WriteString(fill(rest, pad, pad, width))
		return b.String()
	}
	return fill(rest, head, strings.Repeat(" ", utf8.RuneCountInString(head)), width)
}

// fill lays out the words of text after first on the first line and cont
// on the others, each line at most width runes when its words allow.
func fill(text, first, cont string, width int) string {
	var b strings.Builder
	line := first
	n := utf8.RuneCountInString(first)
	start := n
	for _, word := range strings.Fields(text) {
		wl := utf8.RuneCountInString(word)
		if n > start && n+1+wl > width {
			b.WriteString(line)
			b.WriteString("\n")
			line, n = cont, utf8.RuneCountInString(cont)
			start = n
		}
		if n > start {
			line += " "
			n++
		}
		line += word
		n += wl
	}
	b.WriteString(line)
	return b.String()
}
