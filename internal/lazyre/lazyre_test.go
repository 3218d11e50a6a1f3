package lazyre

import (
	"testing"
)

// TestNewCompilesOnce: the expression is compiled at the first call, to
// the same Regexp every call, and a bad one panics there, not before.
func TestNewCompilesOnce(t *testing.T) {
	re := New(`^a(b+)$`)
	first := re()
	if first != re() {
		t.Errorf("two calls gave two Regexps")
	}
	if m := first.FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Errorf("match %q, want [abbb bbb]", m)
	}
	bad := New(`(`) // no panic yet
	defer func() {
		if recover() == nil {
			t.Errorf("a bad expression did not panic at its first use")
		}
	}()
	bad()
}
