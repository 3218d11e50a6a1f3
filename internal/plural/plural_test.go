package plural

import "testing"

func TestN(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 file"}, {1000, "1000 files"}} {
		if got := N(c.n, "file", "files"); got != c.want {
			t.Errorf("N(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := N(1, "more metric is", "more metrics are"); got != "1 more metric is" {
		t.Errorf("several words: %q", got)
	}
}
