package external

import (
	"slices"
	"testing"
)

// TestSplitWords: words split at blanks, quotes keep blanks and the other
// quote, an empty quoted word is a word, an open quote is an error.
func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"--threads 4", []string{"--threads", "4"}},
		{`  ./x 'a b' "it's"  ''`, []string{"./x", "a b", "it's", ""}},
		{"", nil},
	} {
		got, err := SplitWords(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
	if _, err := SplitWords("'open"); err == nil {
		t.Error("an unterminated quote is taken")
	}
}
