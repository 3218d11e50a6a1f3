package textfmt

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// HelpWidthDefault is the width when neither COLUMNS nor a terminal says.
const HelpWidthDefault = 100

// HelpWidth is the width help is wrapped to: Columns of standard output,
// HelpWidthDefault when it says none.
func HelpWidth() int { return Columns(os.Stdout, HelpWidthDefault) }

// Columns is the width of the text contend writes to w: $COLUMNS when it
// is a number from 40 to 1000, else the width of the terminal w is (an
// *os.File, or anything with an Fd), else def (0: the text is not
// wrapped, as into a file or a pipe). Every command asks it the same
// way: help, the report's tables, the warnings, check and reproduce's
// plan.
func Columns(w io.Writer, def int) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 40 && n <= 1000 {
		return n
	}
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col >= 40 {
			return int(ws.Col)
		}
	}
	return def
}

// Rewrap wraps every line of s longer than width at spaces: a table row
// ("   --flag value   usage ...") continues under its usage column, a
// list item ("  - text") under its text, any other line under its own
// indentation. A word longer than a line is never split. Width 0 (or
// less) leaves s as it is. Rewrap and Wrap are contend's one wrapping
// rule: everything that wraps goes through fill.
func Rewrap(s string, width int) string {
	if width <= 0 {
		return s
	}
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
	// A command to copy (not a row of a table of examples, which has
	// its text after two spaces, nor a synopsis with its [options]): broken between its shell words, never
	// inside quotes, each broken line ending with the shell's " \".
	if b := l[indent:]; (strings.HasPrefix(b, "contend ") || strings.HasPrefix(b, "$ ")) && !strings.Contains(b, "  ") && !strings.Contains(b, " [") {
		return fillWords(shellWords(b), l[:indent], strings.Repeat(" ", indent+4), width, " \\")
	}
	// A list item: the text after its bullet or number.
	if m := listItem.FindString(l[indent:]); m != "" {
		return fill(l[indent+len(m):], l[:indent+len(m)], strings.Repeat(" ", indent+len(m)), width)
	}
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

// listItem is the bullet or number that starts a list item: "- ", "* ",
// "1. ".
var listItem = regexp.MustCompile(`^(- |\* |\d{1,3}\. )`)

// shellWords splits a command line at the spaces outside quotes.
func shellWords(s string) []string {
	var words []string
	var quote rune
	start := -1
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// fill lays out the words of text after first on the first line and cont
// on the others, each line at most width runes when its words allow.
func fill(text, first, cont string, width int) string {
	return fillWords(strings.Fields(text), first, cont, width, "")
}

// fillWords is fill of words; every line but the last ends with brk,
// counted in the width. A word longer than a whole line that is a list
// ("a=0,b=1,c=2") may break after its commas, where a reader sees the
// list go on; any other word stays whole, alone on its line if it must.
func fillWords(words []string, first, cont string, width int, brk string) string {
	var b strings.Builder
	line := first
	n := utf8.RuneCountInString(first)
	start := n
	bl := utf8.RuneCountInString(brk)
	room := width - utf8.RuneCountInString(cont) - bl
	for _, word := range words {
		pieces := []string{word}
		if utf8.RuneCountInString(word) > room && strings.Contains(strings.TrimSuffix(word, ","), ",") {
			pieces = strings.SplitAfter(word, ",")
		}
		for k, p := range pieces {
			if p == "" {
				continue
			}
			sep := 1
			if k > 0 {
				sep = 0 // the list goes on without a space
			}
			wl := utf8.RuneCountInString(p)
			if n > start && n+sep+wl+bl > width {
				b.WriteString(line)
				b.WriteString(brk)
				b.WriteString("\n")
				line, n = cont, utf8.RuneCountInString(cont)
				start = n
			}
			if n > start && sep == 1 {
				line += " "
				n++
			}
			line += p
			n += wl
		}
	}
	b.WriteString(line)
	return b.String()
}

// Message wraps each line of s longer than width at spaces (Wrap), its
// continuation lines indented two spaces more than the line, as the
// reports wrap their warnings: a warning, a notice or a problem printed
// to a terminal. Width 0 (or less) leaves s as it is.
func Message(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if utf8.RuneCountInString(l) > width {
			lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
			lines[i] = strings.Join(Wrap(l, width, lead+"  "), "\n")
		}
	}
	return strings.Join(lines, "\n")
}
