package manpage

import (
	"strings"
	"testing"
)

// TestWriteEscapes: text that roff would read as requests or escapes (a
// line starting with a dot or a quote, a backslash) is escaped, and flags
// show their value and default.
func TestWriteEscapes(t *testing.T) {
	app := App{
		Name:        "tool",
		Usage:       "does things",
		Description: "first line\n.so /etc/passwd\n\n    an example\\n here",
		Commands: []Command{
			{Name: "go", Usage: "'quoted start", Flags: []Flag{
				{Names: []string{"count", "c"}, TakesValue: true, Default: "3", Usage: "how many"},
			}},
		},
	}
	var b strings.Builder
	if err := Write(&b, app, Page{Section: "1", Date: "2026-12-01", Version: "1"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, ".so") || strings.HasPrefix(line, "'") {
			t.Errorf("line read as a request: %q", line)
		}
	}
	for _, want := range []string{`\&.so /etc/passwd`, `\&'quoted start`, `an example\en here`, `\fB\-\-count\fR, \fB\-c\fR \fIVALUE\fR`, "how many (default: 3)", ".nf\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
