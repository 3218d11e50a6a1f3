package campaign

import (
	"errors"
	"strings"
	"testing"
)

// TestOpenDirRefuses checks that a directory without a plan and a name
// with a control character are refused as options (usage errors).
func TestOpenDirRefuses(t *testing.T) {
	for arg, want := range map[string]string{
		t.TempDir(): "is not a campaign directory (no plan.json",
		"a\nb":      "campaign step: the directory",
	} {
		_, err := OpenDir("step", arg)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an OptionError with %q", arg, err, want)
		}
	}
}
