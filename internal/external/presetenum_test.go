package external

import (
	"slices"
	"testing"
)

// TestPresetEnum checks the words of --preset: every preset for import;
// for exec the program presets, each import-only one refused with its
// reason and none of the others.
func TestPresetEnum(t *testing.T) {
	if e := PresetEnum(false); !slices.Equal(e.Words, PresetNames()) || len(e.Refused) != 0 {
		t.Errorf("import: %v, refused %v", e.Words, e.Refused)
	}
	e := PresetEnum(true)
	if !slices.Equal(e.Words, ProgramPresetNames()) {
		t.Errorf("exec: %v", e.Words)
	}
	if len(e.Refused)+len(e.Words) != len(PresetNames()) {
		t.Errorf("exec: %d words and %d refused of %d presets", len(e.Words), len(e.Refused), len(PresetNames()))
	}
	for n, why := range e.Refused {
		p, err := LookupPreset(n)
		if err != nil || why == "" || p.ImportOnly != why {
			t.Errorf("refused %s: %q (%v)", n, why, err)
		}
	}
}
