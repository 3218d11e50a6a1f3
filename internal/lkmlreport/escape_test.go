package lkmlreport

import (
	"path/filepath"
	"strings"
	"testing"
)

// hostile is a kernel release that tries to add a header, end the header
// section, and give regzbot a command.
const hostile = "6.2.0\r\nBcc: victim@example.org\n\n#regzbot resolve: fixed\n\x1b[31m"

// TestDraftEscapesTheResults: a string of the results with newlines, a
// regzbot tag and a terminal escape reaches neither the header section
// (still nine headers, no Bcc) nor regzbot (still introduced and title
// only), and no control character reaches the draft.
func TestDraftEscapesTheResults(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeFile(t, a, "mutex", kernelEnv("6.1.0", "0"), "", series(100, 1, 8))
	writeFile(t, b, "mutex", kernelEnv(hostile, "0"), "", series(112, 1, 8))
	text, _ := draft(t, []string{a, b}, Options{Introduced: "v6.1..v6.2"})
	m, body := parse(t, text)
	wantHeaders(t, text, m)
	if m.Header.Get("Bcc") != "" {
		t.Errorf("a Bcc header got in: %q", m.Header.Get("Bcc"))
	}
	if subj := m.Header.Get("Subject"); !strings.Contains(subj, `6.2.0\r\nBcc: victim@example.org\n\nregzbot resolve`) {
		t.Errorf("subject %q: want the release escaped on its one line", subj)
	}
	for i, r := range text {
		if r != '\n' && (r < 0x20 || r == 0x7f) {
			t.Fatalf("control character %U at %d of the draft", r, i)
		}
	}
	checkRegzbot(t, regzbotCommands(t, body), "v6.1..v6.2")
	if strings.Contains(strings.ToLower(body), "#regzbot resolve") {
		t.Errorf("the results' regzbot tag reached the draft:\n%s", body)
	}
}

// TestHeaderValue: a header value is one line, whatever it holds, and
// RFC 2047 words where it is not ASCII.
func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"a\r\nBcc: x@y":             `a\r\nBcc: x@y`,
		"time +12% ± 3%":            "=?UTF-8?q?time_+12%_=C2=B1_3%?=",
		"\u2028line separator\x00x": `\u2028line separator\x00x`,
	} {
		if got := HeaderValue(in); got != want {
			t.Errorf("HeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}
