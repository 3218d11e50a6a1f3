package textfmt

import "testing"

// TestCut: a longer string is cut to n bytes, a shorter or equal one is
// kept.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{{"0123456789abcdef", 12, "0123456789ab"}, {"0123456789ab", 12, "0123456789ab"}, {"abc", 10, "abc"}, {"", 8, ""}} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestLastLine: the last line of the trimmed text, the text itself when
// it is one line, "" for white space.
func TestLastLine(t *testing.T) {
	for s, want := range map[string]string{
		"warning: x\nfatal: bad revision\n": "fatal: bad revision",
		"one line":                          "one line",
		"  a\n  b  \n\n":                    "  b", // its own indent kept
		" \n\t":                             "",
	} {
		if got := LastLine(s); got != want {
			t.Errorf("LastLine(%q) = %q, want %q", s, got, want)
		}
	}
}
