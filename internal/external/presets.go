package external

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"contend/internal/value"
	"contend/internal/workload"
)

// A Preset reads the output of one of the original programs. Its metric
// names match the built-in workload's, so that `compare` lines them up.
type Preset struct {
	Name string
	Desc string
	// Metrics in record order: for import, each match of the first one
	// starts a new record (repetition).
	Metrics []Spec
	// Primary is the metric that headlines reports: one of Metrics, or a
	// process metric measured by exec (mutex: real, as the original was
	// timed with time(1)).
	Primary string
	// ImportOnly presets read lines that a shell, not the program,
	// prints: exec measures them itself.
	ImportOnly string
}

func spec(name, re, unit string, better workload.Better, desc string) Spec {
	return Spec{Name: name, Regex: regexp.MustCompile(re), Unit: unit, Better: better, Desc: desc}
}

// presets are built on first use: compiling their regular expressions at
// package init would slow the start of every repetition child, which links
// this package too.
var presets = sync.OnceValue(buildPresets)

// buildPresets makes a preset of every workload's Output, and adds the
// import-only "time".
func buildPresets() map[string]*Preset {
	ps := map[string]*Preset{
		"time": {
			Name: "time",
			Desc: "bash's time keyword: real, user, sys lines (0m24.132s, or time -p's 24.13)",
			Metrics: []Spec{
				spec("real", `(?m)^real\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "wall time printed by the shell's time"),
				spec("user", `(?m)^user\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "user CPU time printed by the shell's time"),
				spec("sys", `(?m)^sys\s+(\d+m\d+(?:\.\d+)?s|\d+(?:\.\d+)?)`, "s", workload.Lower, "system CPU time printed by the shell's time"),
			},
			Primary:    "real",
			ImportOnly: "the time preset reads the real/user/sys lines a shell prints around a program; exec measures real, user and sys itself (wait4): use it with import",
		},
	}
	for _, w := range workload.All() {
		o := w.Output
		if o == nil {
			continue
		}
		p := &Preset{Name: o.Preset, Desc: o.Desc, Primary: o.Primary}
		for _, m := range o.Metrics {
			p.Metrics = append(p.Metrics, spec(m.Name, m.Regex, m.Unit, m.Better, m.Desc))
		}
		ps[o.Preset] = p
	}
	return ps
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (*Preset, error) {
	p, ok := presets()[name]
	if !ok {
		return nil, fmt.Errorf("no preset %q; presets: %s", name, strings.Join(PresetNames(), ", "))
	}
	return p, nil
}

// PresetNames returns the preset names, sorted.
func PresetNames() []string {
	var ns []string
	for n := range presets() {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// PresetEnum is the words of --preset: every preset (import), or under a
// command that runs the program (program) the program presets, an
// import-only one refused with its reason.
func PresetEnum(program bool) *value.Enum {
	e := &value.Enum{Words: PresetNames()}
	if program {
		e.Words, e.Refused = ProgramPresetNames(), map[string]string{}
		for _, n := range PresetNames() {
			if p := presets()[n]; p.ImportOnly != "" {
				e.Refused[n] = p.ImportOnly
			}
		}
	}
	return e
}

// ProgramPresetNames returns the presets of programs exec can run (the
// workloads' originals), sorted: PresetNames without the import-only ones.
func ProgramPresetNames() []string {
	var ns []string
	for _, n := range PresetNames() {
		if presets()[n].ImportOnly == "" {
			ns = append(ns, n)
		}
	}
	return ns
}
