package esc

import (
	"bytes"
	"strings"
	"testing"
)

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain label", "plain label", "plain label"},
		{`C:\dir`, `C:\dir`, `C:\dir`},
		{"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"x\ny\tz", `x\ny\tz`, "x\ny\tz"},
		{"r\rs", `r\rs`, `r\rs`},
		{"\\\x1b", `\\\x1b`, `\\\x1b`},
		{"csi\u009bq", `csi\u009bq`, `csi\u009bq`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"naïve 時間", "naïve 時間", "naïve 時間"},
		{"\x7f", `\x7f`, `\x7f`},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("--label", "fine: 10% more"); err != nil {
		t.Error(err)
	}
	err := Check("--dir", "/x/y\n[Service]")
	if err == nil || !strings.Contains(err.Error(), "--dir") || !strings.Contains(err.Error(), "U+000A") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Check: %v", err)
	}
}

// TestWriterHoldsCutCharacters: a character cut between two writes is
// written whole; an escape sequence cut anywhere is escaped.
func TestWriterHoldsCutCharacters(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	in := "時間 \x1b[31mred\x1b[0m\n"
	for i := range len(in) {
		w.Write([]byte{in[i]})
	}
	w.Flush()
	if want := `時間 \x1b[31mred\x1b[0m` + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if Raw(w) != &out {
		t.Error("Raw")
	}
}
