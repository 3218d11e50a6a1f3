package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"rnu", "run", 1}, {"faultmee", "faultme", 1}, {"Threads", "threads", 0}, {"ab", "ba", 1}, {"héllo", "hello", 1}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Distance(c.b, c.a); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

func TestClosest(t *testing.T) {
	cmds := []string{"list", "run", "show", "compare", "ab", "sweep", "plot", "exec", "import", "verify", "env", "tune", "check", "cleanup"}
	for _, c := range []struct {
		word string
		want string
		ok   bool
	}{
		{"rnu", "run", true}, {"comapre", "compare", true}, {"swep", "sweep", true}, {"imprt", "import", true},
		{"clean", "cleanup", true},                                 // a prefix of one
		{"x", "", false}, {"zzzzzz", "", false}, {"ba", "", false}, // too short to correct into "ab"
		{"run", "", false}, // an exact word is not a suggestion
	} {
		got, ok := Closest(c.word, cmds)
		if got != c.want || ok != c.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	if got, _ := Closest("thread", []string{"threads", "thp", "stride"}); got != "threads" {
		t.Errorf("Closest(thread) = %q", got)
	}
}
