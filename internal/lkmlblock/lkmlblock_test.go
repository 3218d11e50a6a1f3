package lkmlblock

import "testing"

// TestNrTask checks the robot's nr_task: a share of the online CPUs where
// it is a whole one, else the count.
func TestNrTask(t *testing.T) {
	for _, c := range []struct{ tasks, cpus, want string }{
		{"2", "4", "50%"}, {"4", "4", "100%"}, {"3", "4", "75%"}, {"1", "3", "1"}, {"1", "", "1"}, {"x", "4", "x"}, {"1", "0", "1"},
	} {
		if got := NrTask(c.tasks, c.cpus); got != c.want {
			t.Errorf("NrTask(%q, %q) = %q, want %q", c.tasks, c.cpus, got, c.want)
		}
	}
}
