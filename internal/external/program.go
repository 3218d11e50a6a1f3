package external

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"contend/internal/workload"
)

// What the commands that run external programs (exec, ab exec, verify)
// decide before anything runs: the metrics read from the output, the
// program's check, the result file's workload name, the timeout.

// MetricSpecs returns the metrics asked for with --preset (preset, ""
// for none) and --metric (texts), the primary metric (the preset's, else
// the first --metric's) and the preset. A metric given twice is refused.
func MetricSpecs(preset string, texts []string) ([]Spec, string, *Preset, error) {
	var specs []Spec
	primary := ""
	var pre *Preset
	if preset != "" {
		p, err := LookupPreset(preset)
		if err != nil {
			return nil, "", nil, workload.Usagef("--preset: %v", err)
		}
		pre = p
		specs = append(specs, p.Metrics...)
		primary = p.Primary
	}
	seen := map[string]bool{}
	for _, s := range specs {
		seen[s.Name] = true
	}
	for _, text := range texts {
		s, err := ParseSpec(text)
		if err != nil {
			return nil, "", nil, workload.Usagef("--metric: %v", err)
		}
		if seen[s.Name] {
			return nil, "", nil, workload.Usagef("--metric %s: given twice (or also in --preset)", s.Name)
		}
		seen[s.Name] = true
		specs = append(specs, s)
		if primary == "" {
			primary = s.Name
		}
	}
	return specs, primary, pre, nil
}

// ProgramMetrics returns the metrics that exec and ab exec read from a
// program's output (MetricSpecs) and the primary metric, real without
// any. A metric named as a process metric (measured by contend) is
// refused.
func ProgramMetrics(preset string, texts []string) ([]Spec, string, error) {
	specs, primary, _, err := MetricSpecs(preset, texts)
	if err != nil {
		return nil, "", err
	}
	for _, s := range specs {
		if IsProcessMetric(s.Name) {
			return nil, "", workload.Usagef("--metric %s: %s is measured by contend for every repetition (wait4); give the extracted metric another name, such as %s_out", s.Name, s.Name, s.Name)
		}
	}
	if primary == "" {
		primary = "real"
	}
	return specs, primary, nil
}

// ImportMetrics returns the metrics that import reads from a log
// (MetricSpecs; none is a usage error), the primary one (a preset's
// process metric, such as mutex's real, is not in a log: then the first
// metric) and the file's workload name: "import" or "import:PRESET".
func ImportMetrics(preset string, texts []string) ([]Spec, string, string, error) {
	specs, primary, pre, err := MetricSpecs(preset, texts)
	if err != nil {
		return nil, "", "", err
	}
	if len(specs) == 0 {
		return nil, "", "", workload.Usagef("import: which metrics? give --preset (%s) or --metric NAME=REGEX", strings.Join(PresetNames(), ", "))
	}
	name := "import"
	if pre != nil {
		name = "import:" + pre.Name
		if !slices.ContainsFunc(specs, func(s Spec) bool { return s.Name == pre.Primary }) {
			primary = specs[0].Name // a process metric (mutex: real) is not in a log
		}
	}
	return specs, primary, name, nil
}

// IsProcessMetric reports whether name is one of the process metrics
// contend measures for every repetition (workload.ProcessMetrics).
func IsProcessMetric(name string) bool {
	for _, m := range workload.ProcessMetrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// CheckProgram fails early, as a usage error prefixed by what (what gave
// p: "exec", "--a"), when the program p cannot be run: a name without a
// slash not in PATH, a path that is no executable file.
func CheckProgram(what, p string) error {
	if !strings.Contains(p, "/") {
		if _, err := LookPath(p); err != nil {
			return workload.Usagef("%s: %s: not found in PATH (give a path such as ./%s)", what, p, p)
		}
		return nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return workload.Usagef("%s: %s: no such file", what, p)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return workload.Usagef("%s: %s is not an executable file", what, p)
	}
	return nil
}

// LookPath finds a program without a slash (tests replace it).
var LookPath = exec.LookPath

// Name is the workload name of a result file of external program runs:
// exec:PROGRAM's base name, or exec:sh with shell.
func Name(program string, shell bool) string {
	if shell {
		return "exec:sh"
	}
	return "exec:" + filepath.Base(program)
}

// DefaultTimeout is the per-repetition timeout of an external program
// when --timeout is not given: nothing is known of what it does, so the
// default only ends a program that hangs.
const DefaultTimeout = time.Hour

// Timeout is the per-repetition timeout of a program: given, else
// DefaultTimeout.
func Timeout(given time.Duration) time.Duration {
	if given > 0 {
		return given
	}
	return DefaultTimeout
}

// VerifySpecs returns the metrics verify reads from the original
// program's output: specs (--preset and --metric), else w's preset; each
// must be in the unit of w's metric of that name, and the primary metric
// of w must be among them (or be a process metric).
func VerifySpecs(w *workload.Workload, specs []Spec) ([]Spec, error) {
	if len(specs) == 0 {
		if w.Preset == "" {
			return nil, workload.Usagef("verify %s: the workload names no preset for its original's output; give --preset or --metric", w.Name)
		}
		p, err := LookupPreset(w.Preset)
		if err != nil {
			return nil, err
		}
		specs = p.Metrics
	}
	units := map[string]string{}
	for _, m := range append(append([]workload.Metric{}, w.Metrics...), workload.ProcessMetrics...) {
		units[m.Name] = m.Result().Unit
	}
	found := false
	for _, s := range specs {
		if IsProcessMetric(s.Name) {
			return nil, workload.Usagef("--metric %s: %s is measured by contend for every repetition (wait4); name the extracted metric differently", s.Name, s.Name)
		}
		if u, ok := units[s.Name]; ok && u != s.BaseUnit() {
			return nil, workload.Usagef("metric %s: the original's is in %s, %s's in %s", s.Name, s.BaseUnit(), w.Name, u)
		}
		found = found || s.Name == w.Primary
	}
	if !found && !IsProcessMetric(w.Primary) {
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
		}
		return nil, workload.Usagef("verify %s: the original's metrics (%s) do not include %s's primary metric %s", w.Name, strings.Join(names, ", "), w.Name, w.Primary)
	}
	return specs, nil
}
