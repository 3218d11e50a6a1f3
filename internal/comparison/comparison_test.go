package comparison

import "testing"

func TestComparableWorkloads(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"faultme", "faultme", true},
		{"import:faultme", "faultme", true},
		{"exec:faultme40", "faultme", true},
		{"osim", "exec:osim", true},
		{"faultme", "osim", false},
		{"import:faultme", "import:osim", false},
	} {
		if got := comparableWorkloads(c.a, c.b); got != c.want {
			t.Errorf("comparableWorkloads(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
