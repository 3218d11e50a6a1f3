package workload

import (
	"errors"
	"strings"
	"testing"
)

// TestWithPositional checks positional arguments on a workload with two
// (threads sems) and on one with none: taken in order, and the three
// refusals as usage errors.
func TestWithPositional(t *testing.T) {
	two := &Workload{Name: "w", Positional: []string{"threads", "sems"}}
	got, err := two.WithPositional(map[string]string{"x": "1"}, []string{"4", "8"})
	if err != nil || got["threads"] != "4" || got["sems"] != "8" || got["x"] != "1" {
		t.Errorf("two: %v %v", got, err)
	}
	for _, c := range []struct {
		w     *Workload
		given map[string]string
		args  []string
		want  string
	}{
		{&Workload{Name: "none"}, map[string]string{}, []string{"3"}, `none takes no positional arguments (got "3")`},
		{two, map[string]string{}, []string{"4"}, "w takes 2 positional arguments <threads> <sems>, got 1"},
		{two, map[string]string{"sems": "2"}, []string{"4", "8"}, "--sems given both as a flag and as positional argument 2"},
	} {
		_, err := c.w.WithPositional(c.given, c.args)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
