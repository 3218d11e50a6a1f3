package evidence

import "testing"

// TestProfileEvent: the event the profile's family descriptions name is
// read back from them (and from a member's, its name appended), for
// --format lkml's perf-profile.self.EVENT names; other descriptions give "".
func TestProfileEvent(t *testing.T) {
	for _, ev := range []string{"cycles", "cpu-clock"} {
		for _, m := range (&profile{event: ev}).Metrics() {
			if m.Name == ProfileSamples { // a count, not a share
				continue
			}
			if got := ProfileEvent(m.Desc); got != ev {
				t.Errorf("%s: ProfileEvent(%q) = %q", ev, m.Desc, got)
			}
			if got := ProfileEvent(m.Desc + ": clear_page_erms"); got != ev {
				t.Errorf("%s: member: %q", ev, got)
			}
		}
	}
	for _, d := range []string{"", "system-wide CPU time in user mode", "share of the two kinds samples"} {
		if got := ProfileEvent(d); got != "" {
			t.Errorf("ProfileEvent(%q) = %q, want none", d, got)
		}
	}
}
