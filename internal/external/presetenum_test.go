package external

import (
	"slices"
	"strings"
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

// TestImportMetrics checks import's metrics: none is a usage error
// naming the presets; --metric alone is workload "import" with its first
// metric primary; a preset names the workload "import:PRESET".
func TestImportMetrics(t *testing.T) {
	if _, _, _, err := ImportMetrics("", nil); err == nil || !strings.Contains(err.Error(), "import: which metrics? give --preset (") {
		t.Errorf("no metrics: %v", err)
	}
	specs, primary, name, err := ImportMetrics("", []string{`t=t=(\d+):us`})
	if err != nil || len(specs) != 1 || primary != "t" || name != "import" {
		t.Errorf("--metric: %v %q %q %v", specs, primary, name, err)
	}
	specs, primary, name, err = ImportMetrics("time", nil)
	if err != nil || name != "import:time" || !slices.ContainsFunc(specs, func(s Spec) bool { return s.Name == primary }) {
		t.Errorf("--preset time: %v %q %q %v", specs, primary, name, err)
	}
}
