package esc

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Coloured returns the writer a text report is written to and the
// function that finishes it. On a terminal (w is, under its Writer, a
// tty) and unless NO_COLOR is set (https://no-color.org: any non-empty
// value) or TERM is dumb, the text is held, and when done each line is
// escaped (Line), given to colour and written to the terminal; never in a
// pipe or a file, where the text goes to w as it comes.
func Coloured(w io.Writer, getenv func(string) string, colour func(string) string) (io.Writer, func() error) {
	raw := Raw(w)
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" || !IsTTY(raw) {
		return w, func() error { return nil }
	}
	var buf bytes.Buffer
	return &buf, func() error {
		out := bufio.NewWriter(raw)
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			nl := strings.HasSuffix(line, "\n")
			line = colour(Line(strings.TrimSuffix(line, "\n")))
			if nl {
				line += "\n"
			}
			out.WriteString(line)
		}
		return out.Flush()
	}
}

// IsTTY tells whether w is a terminal.
func IsTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
