package hints

import "testing"

// TestTypedFlag checks that a flag is named as it was typed, and with the
// dashes of its kind where it was not found.
func TestTypedFlag(t *testing.T) {
	args := []string{"contend", "run", "faultme", "-n3", "--thred=4", "--", "-x"}
	for name, want := range map[string]string{"n3": "-n3", "thred": "--thred", "x": "-x", "zz": "--zz"} {
		if got := typedFlag(args, name); got != want {
			t.Errorf("typedFlag(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestSideValue checks the reading of ab's --a and --b in both spellings.
func TestSideValue(t *testing.T) {
	args := []string{"contend", "ab", "faultme", "--a", "--threads 2", "--b=--threads 4"}
	if v, ok := sideValue(args, "a"); !ok || v != "--threads 2" {
		t.Errorf("--a: %q %v", v, ok)
	}
	if v, ok := sideValue(args, "b"); !ok || v != "--threads 4" {
		t.Errorf("--b: %q %v", v, ok)
	}
	if _, ok := sideValue([]string{"contend", "ab", "--a"}, "a"); ok {
		t.Error("--a without a value was read")
	}
}

// TestQuoteSideHint checks the quotes suggested for a side's flags given
// without them, and no hint for a side given quoted.
func TestQuoteSideHint(t *testing.T) {
	got := quoteSideHint([]string{"contend", "ab", "faultme", "--a", "--threads", "4"}, "4")
	if want := "--a takes the side's flags as one quoted argument: --a '--threads 4'"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := quoteSideHint([]string{"contend", "ab", "faultme", "--a", "--threads 4"}, "x"); got != "" {
		t.Errorf("quoted side: %q", got)
	}
}

// TestDashed checks the dashes of one-letter and longer flag names.
func TestDashed(t *testing.T) {
	for in, want := range map[string]string{"n": "-n", "-n": "-n", "threads": "--threads", "--out": "--out"} {
		if got := Dashed(in); got != want {
			t.Errorf("Dashed(%q) = %q, want %q", in, got, want)
		}
	}
}
