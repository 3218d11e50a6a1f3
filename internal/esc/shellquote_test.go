package esc

import (
	"os/exec"
	"testing"
)

// TestShellQuoteRoundTrip: sh reads every quoted word back as it was,
// and plain words stay unquoted.
func TestShellQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain-word_1.2/x=y:z,+@%", "two words", "it's", "'", `a"b`, "$HOME", "a\nb", "*", "semi;colon", "back\\slash"} {
		out, err := exec.Command("sh", "-c", "printf %s "+ShellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("%q quoted as %s: sh gave %q (%v)", s, ShellQuote(s), out, err)
		}
	}
	if q := ShellQuote("plain-word"); q != "plain-word" {
		t.Errorf("plain word quoted: %s", q)
	}
}
