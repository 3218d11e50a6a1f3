package results

import "testing"

func TestParamShown(t *testing.T) {
	for _, c := range []struct {
		p    Param
		want string
	}{
		{Param{Name: "mem", Value: "1048576", Display: "1MiB"}, "1MiB"},
		{Param{Name: "threads", Value: "4"}, "4"},
		{Param{Name: "x"}, ""},
	} {
		if got := c.p.Shown(); got != c.want {
			t.Errorf("%+v.Shown() = %q, want %q", c.p, got, c.want)
		}
	}
}
