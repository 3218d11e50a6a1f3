package textfmt

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	got := Wrap("  one two three four five", 12, "    ")
	want := []string{"  one two", "    three", "    four", "    five"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	long := Wrap(strings.Repeat("x", 25), 10, "  ")
	for _, l := range long {
		if len(l) > 10 {
			t.Errorf("line %q longer than 10", l)
		}
	}
	if strings.ReplaceAll(strings.Join(long, ""), " ", "") != strings.Repeat("x", 25) {
		t.Errorf("long word lost characters: %q", long)
	}
}

func TestTable(t *testing.T) {
	tb := &Table{}
	tb.AlignLeft(1)
	tb.Row("metric", "unit", "value")
	tb.Row("time", "ns", "1.5")
	tb.Row("contended", "count", "1200")
	var b strings.Builder
	tb.Write(&b)
	want := "metric     unit   value\ntime       ns       1.5\ncontended  count   1200\n"
	if b.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", b.String(), want)
	}
}
