package manpage

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestWriteEscapes: text that roff would read as requests or escapes (a
// line starting with a dot or a quote, a backslash) is escaped, hidden
// commands and flags are left out, and flags show their value and default.
func TestWriteEscapes(t *testing.T) {
	app := &cli.App{
		Name:        "tool",
		Usage:       "does things",
		Description: "first line\n.so /etc/passwd\n\n    an example\\n here",
		Commands: []*cli.Command{
			{Name: "go", Usage: "'quoted start", Flags: []cli.Flag{
				&cli.IntFlag{Name: "count", Aliases: []string{"c"}, Value: 3, Usage: "how many"},
				&cli.BoolFlag{Name: "secret", Hidden: true},
			}},
			{Name: "hidden", Hidden: true},
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
	for _, no := range []string{"secret", "hidden"} {
		if strings.Contains(page, no) {
			t.Errorf("page names hidden %q", no)
		}
	}
}
