package lkmlreport

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"contend/analysis"
	"contend/internal/comparison"
	"contend/internal/results"
)

// Headline is the change of the comparison's headline metric, new side
// against base: at the boot level where both sides span two or more
// boots (Student's t on the per-boot means), else the runs' test
// (Holm-adjusted).
type Headline struct {
	Metric    results.Metric
	Direction analysis.Direction
	// Change is relative (0.12 is +12%), [Lo, Hi] its interval when
	// HasCI; P the p-value the verdict uses, Alpha the level.
	Change, Lo, Hi float64
	HasCI          bool
	P, Alpha       float64
	NA, NB         int
	Unit           string // "runs" or "boots"
	Test           string
	// Tested is false when every value was the same on both sides.
	Tested bool
}

// HeadlineOf returns the headline of r's first pair.
func HeadlineOf(r *comparison.Comparison) Headline {
	h := Headline{Metric: r.Metric(r.Headline), Alpha: r.Options.Alpha, Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN(), Unit: "runs",
		Test: r.Options.Test.String() + ", Holm-adjusted"}
	if len(r.Pairs) == 0 {
		return h
	}
	for _, row := range r.Pairs[0].Rows {
		if row.Metric.Name != r.Headline {
			continue
		}
		h.Direction = row.Direction
		if c := row.Cmp; c != nil {
			h.Tested = true
			h.Change, h.P, h.NA, h.NB = c.Estimate, c.AdjustedP, c.SummaryA.N, c.SummaryB.N
			if math.IsNaN(h.Change) {
				h.Change = c.Change
			}
			if c.HasChangeCI {
				h.Lo, h.Hi, h.HasCI = c.ChangeLo, c.ChangeHi, true
			}
		}
	}
	if len(r.Boots) > 0 && r.Boots[0].Cmp != nil && !r.Boots[0].OneBoot() && r.Boots[0].Metric == r.Headline {
		bc := r.Boots[0].Cmp
		h.Tested = true
		h.Change, h.Lo, h.Hi, h.HasCI, h.P = bc.Ratio-1, bc.Lo-1, bc.Hi-1, true, bc.P
		h.NA, h.NB, h.Unit, h.Test = bc.BootsA, bc.BootsB, "boots", "Student's t on the per-boot means"
	}
	return h
}

// Significant reports whether the headline changed at level Alpha.
func (h Headline) Significant() bool { return h.Tested && !math.IsNaN(h.P) && h.P < h.Alpha }

// Worse reports whether the change is for the worse: up where lower is
// better, down where higher is.
func (h Headline) Worse() bool {
	switch h.Direction {
	case analysis.LowerIsBetter:
		return h.Change > 0
	case analysis.HigherIsBetter:
		return h.Change < 0
	}
	return false
}

// pct formats a relative change with its sign: "+12.3%".
func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	if math.Abs(x) >= 100 {
		return fmt.Sprintf("%+.4g%%", 100*x)
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// pval formats a p-value.
func pval(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// change says h's change with its interval: "+12.3% [+8.1%, +16.0%]".
func (h Headline) change() string {
	s := pct(h.Change)
	if h.HasCI {
		s += fmt.Sprintf(" [%s, %s]", pct(h.Lo), pct(h.Hi))
	}
	return s
}

// Kernel is what a side's result files say of the kernel it ran.
type Kernel struct {
	Release, Version string
	// Tainted is /proc/sys/kernel/tainted as recorded ("" not recorded).
	Tainted string
	// ConfigSHA256 is the .config's SHA-256: kbuild.config_sha256 for a
	// kernel contend built, else kernel.config_sha256.
	ConfigSHA256 string
	// Revision is the commit contend built it from (kbuild.revision).
	Revision string
	Cmdline  string
}

// sideEnv returns the environment of side i's first file and
// configuration (the configuration's keys over the file's).
func sideEnv(r *comparison.Comparison, i int) map[string]string {
	out := map[string]string{}
	parts := r.SideParts(i)
	if len(parts) == 0 || parts[0].File == nil {
		return out
	}
	p := parts[0]
	for k, v := range p.File.Env {
		out[k] = v
	}
	if len(p.Configs) > 0 && p.Configs[0] < len(p.File.Configs) {
		for k, v := range p.File.Configs[p.Configs[0]].Env {
			out[k] = v
		}
	}
	return out
}

// KernelOf returns the kernel of side i of r.
func KernelOf(r *comparison.Comparison, i int) Kernel {
	e := sideEnv(r, i)
	k := Kernel{Release: e["kernel.release"], Version: e["kernel.version"], Tainted: e["kernel.tainted"],
		ConfigSHA256: e["kernel.config_sha256"], Revision: e["kbuild.revision"], Cmdline: e["kernel.cmdline"]}
	if c := e["kbuild.config_sha256"]; c != "" {
		k.ConfigSHA256 = c
	}
	return k
}

// same reports whether a and b are the same kernel as far as the files
// tell: every fact recorded on both sides equal, and one at least.
func (a Kernel) same(b Kernel) bool {
	n := 0
	for _, f := range [][2]string{{a.Release, b.Release}, {a.Version, b.Version}, {a.ConfigSHA256, b.ConfigSHA256}, {a.Revision, b.Revision}} {
		if f[0] == "" || f[1] == "" {
			if f[0] != f[1] {
				return false
			}
			continue
		}
		if f[0] != f[1] {
			return false
		}
		n++
	}
	return n > 0
}

// taintFlags are the kernel's taint letters by bit, and what each says
// (Documentation/admin-guide/tainted-kernels.rst).
var taintFlags = []struct{ letter, what string }{
	{"P", "proprietary module loaded"},
	{"F", "module force loaded"},
	{"S", "out-of-specification system"},
	{"R", "module force unloaded"},
	{"M", "machine check"},
	{"B", "bad page"},
	{"U", "tainted by user space"},
	{"D", "kernel died (oops or BUG)"},
	{"A", "ACPI table overridden"},
	{"W", "kernel warning"},
	{"C", "staging driver loaded"},
	{"I", "firmware bug workaround"},
	{"O", "out-of-tree module loaded"},
	{"E", "unsigned module loaded"},
	{"L", "soft lockup"},
	{"K", "live patched"},
	{"X", "auxiliary taint"},
	{"T", "struct randomization"},
	{"N", "in-kernel test run"},
	{"J", "fwctl mutating debug operation"},
}

// Taint says a recorded /proc/sys/kernel/tainted in words: "untainted",
// "tainted 4609 (P, W, O: proprietary module loaded, ...)", or "not
// recorded".
func Taint(v string) string {
	if v == "" {
		return "taint not recorded (the contend that measured did not record it)"
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return "taint " + v + " (not a number)"
	}
	if n == 0 {
		return "untainted"
	}
	var letters, words []string
	for b := 0; b < 64; b++ {
		if n&(1<<b) == 0 {
			continue
		}
		if b < len(taintFlags) {
			letters, words = append(letters, taintFlags[b].letter), append(words, taintFlags[b].what)
		} else {
			letters, words = append(letters, "bit "+strconv.Itoa(b)), append(words, "unknown")
		}
	}
	return fmt.Sprintf("TAINTED %d (%s: %s)", n, strings.Join(letters, ", "), strings.Join(words, "; "))
}

// reVanilla matches the release of a kernel built from a mainline or
// stable tag with no local version: 6.12.0, 6.12.0-rc1, 6.6.3.
var reVanilla = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-rc\d+)?$`)

// TagOf returns the git tag of a vanilla release ("6.12.0-rc1" ->
// "v6.12-rc1", "6.6.3" -> "v6.6.3"), "" for any other release.
func TagOf(release string) string {
	m := reVanilla.FindStringSubmatch(release)
	if m == nil {
		return ""
	}
	if m[3] == "0" {
		return "v" + m[1] + "." + m[2] + m[4]
	}
	return "v" + m[1] + "." + m[2] + "." + m[3] + m[4]
}

// Machine is the base side's machine in the robot's words: "test
// machine: 2 threads Intel(R) Xeon(R) ... with 16G memory", and a line on
// the virtual machine where the kernels ran in one.
func Machine(r *comparison.Comparison) []string {
	e := sideEnv(r, 0)
	cpus, model := e["cpu.online"], e["cpu.model"]
	if cpus == "" {
		cpus = "?"
	}
	if model == "" {
		model = "(CPU model not recorded)"
	}
	line := "test machine: " + cpus + " threads " + model
	if kb, ok := strings.CutSuffix(e["mem.total"], " kB"); ok {
		if n, err := strconv.ParseFloat(kb, 64); err == nil && n > 0 {
			line += fmt.Sprintf(" with %.0fG memory", n/(1<<20))
		}
	}
	out := []string{line}
	if a := e["vm.accel"]; a != "" {
		vm := "  (a QEMU guest: " + e["vm.cpus"] + " vCPUs, " + e["vm.mem"] + ", " + strings.ToUpper(a)
		if h := e["vm.host_cpu"]; h != "" {
			vm += " on " + h
		}
		out = append(out, vm+")")
		if t := e["vm.timing"]; t != "" {
			out = append(out, "  "+t)
		}
	}
	return out
}
