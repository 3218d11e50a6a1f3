// Package lkmlblock is the adapter of --format lkml: it fills
// internal/lkml's Block from internal/comparison's Comparison (the sides,
// their files' parameters and environment, the first pair's rows).
// internal/lkml knows no comparison.
package lkmlblock

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/lkml"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/workload"
)

// Write writes r, a comparison of two sides, in the robot's layout;
// all shows the rows that did not change too.
func Write(w io.Writer, r *comparison.Comparison, all bool) error {
	sides := make([]comparison.Side, len(r.Sides))
	for i, s := range r.Sides {
		sides[i] = comparison.Side{Name: s.Name, Parts: r.SideParts(i)}
	}
	b, err := Build(sides, r, all)
	if err != nil {
		return err
	}
	return lkml.Write(w, b)
}

// Build returns the robot's block of r, a comparison of the two sides;
// all keeps the rows that did not change too.
func Build(sides []comparison.Side, r *comparison.Comparison, all bool) (lkml.Block, error) {
	if len(sides) != 2 || len(r.Pairs) != 1 {
		return lkml.Block{}, workload.Usagef("--format lkml: compares two sides (a base and a new one), got %d", len(sides))
	}
	base, next := firstConfig(sides[0]), firstConfig(sides[1])
	b := lkml.Block{All: all, Test: r.Options.Test.String(), Alpha: r.Options.Alpha}
	b.Base, b.New = lkmlSide(sides[0], base, next), lkmlSide(sides[1], next, base)
	b.Axes = lkmlAxes(r.Workload, base)
	// Axes the sides differ in (ab --a "--tasks 1" --b "--tasks 2") name
	// the sides, as the robot's compare axes do.
	other := map[string]string{}
	for _, a := range lkmlAxes(r.Workload, next) {
		other[a.Key] = a.Value
	}
	var common []lkml.Axis
	var keys, va, vb []string
	for _, a := range b.Axes {
		if v, ok := other[a.Key]; ok && v != a.Value {
			keys, va, vb = append(keys, a.Key), append(va, a.Value), append(vb, v)
			continue
		}
		common = append(common, a)
	}
	if len(keys) > 0 {
		b.Axes, b.CompareKey = common, strings.Join(keys, "/")
		b.Base.ID, b.New.ID = strings.Join(va, "/"), strings.Join(vb, "/")
		b.Base.Label, b.New.Label = sides[0].Name, sides[1].Name
	}
	tested, seconds := 0, 0
	for _, row := range r.Pairs[0].Rows {
		name, scale := lkml.RobotName(r.Workload, row.Metric.Name)
		if pn, ok := lkml.ProfileName(row.Metric.Name, evidence.ProfileEvent(row.Metric.Desc)); ok {
			name = pn
		}
		if f, ok := toSeconds[row.Metric.Unit]; ok && scale == 1 {
			// The robot's time rows are seconds (time.elapsed_time):
			// contend's times in ns are printed so too.
			scale = f
			seconds++
		}
		lr := lkml.Row{Stat: name, Percent: lkml.PercentStat(name) || row.Metric.Unit == "%"}
		if row.Cmp == nil { // identical on both sides
			continue
		}
		c := row.Cmp
		tested++
		lr.Base = lkml.Stats{Mean: c.SummaryA.Mean * scale, StdDev: c.SummaryA.StdDev * scale, N: c.SummaryA.N}
		lr.New = lkml.Stats{Mean: c.SummaryB.Mean * scale, StdDev: c.SummaryB.StdDev * scale, N: c.SummaryB.N}
		lr.P, lr.AdjustedP = c.P, c.AdjustedP
		lr.HL, lr.HLLo, lr.HLHi, lr.HasCI = c.Estimate, c.ChangeLo, c.ChangeHi, c.HasChangeCI
		if lr.Percent && c.ChangeMethod.Absolute() {
			// The robot's absolute change: the shift in points.
			lr.HL, lr.HLLo, lr.HLHi, lr.HasCI = c.Shift*scale, c.ShiftLo*scale, c.ShiftHi*scale, c.HasShiftCI
		}
		lr.Changed = !math.IsNaN(c.AdjustedP) && c.AdjustedP < b.Alpha
		lr.Keep = row.Metric.Name == r.Headline
		if b.Base.N == 0 || lr.Keep {
			b.Base.N, b.New.N = c.SummaryA.N, c.SummaryB.N
		}
		b.Rows = append(b.Rows, lr)
	}
	b.Family = strings.Join(r.Families, "; ")
	if b.Family == "" {
		b.Family = "Holm over " + plural.N(tested, "test", "tests")
	}
	if seconds > 0 {
		b.Notes = append(b.Notes, "times in seconds, as the robot's time rows are (contend's files keep ns)")
	}
	lkmlBoots(&b, r)
	// The unit of replication: what the p-values cover.
	if _, note := r.ReplicationNamed(r.Pairs[0], "the base", "the new side"); note != "" {
		b.Notes = append(b.Notes, note)
	}
	if n := report.InstabilityNote(r, r.Pairs[0]); n != "" {
		b.Notes = append(b.Notes, "the headline is "+n)
	}
	return b, nil
}

// toSeconds are the factors from contend's time units to seconds.
var toSeconds = map[string]float64{"ns": 1e-9, "us": 1e-6, "ms": 1e-3}

// lkmlBoots makes the boot the unit of the headline row where the sides
// span two or more boots each (a campaign): n in boots, Student's t on the
// per-boot means and their ratio's interval; the other rows pool the runs.
func lkmlBoots(b *lkml.Block, r *comparison.Comparison) {
	if len(r.Boots) == 0 || r.Boots[0].Cmp == nil || r.Boots[0].OneBoot() {
		return
	}
	bc := r.Boots[0].Cmp
	b.Base.N, b.Base.Unit, b.New.N, b.New.Unit = bc.BootsA, "boots", bc.BootsB, "boots"
	for i := range b.Rows {
		if b.Rows[i].Keep {
			row := &b.Rows[i]
			row.P, row.AdjustedP = bc.P, bc.P
			row.HL, row.HLLo, row.HLHi, row.HasCI = bc.Ratio-1, bc.Lo-1, bc.Hi-1, true
			row.Changed = bc.P < b.Alpha
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("the headline: Student's t on the per-boot means (%d and %d runs in all); the other rows pool the runs", bc.RunsA, bc.RunsB))
}

// lkmlPart is a side's first file and configuration: its parameters and
// environment name the side.
type lkmlPart struct {
	f *results.File
	c results.Config
}

// firstConfig returns the first file's configuration of side s.
func firstConfig(s comparison.Side) lkmlPart {
	if len(s.Parts) == 0 || s.Parts[0].File == nil {
		return lkmlPart{}
	}
	p := s.Parts[0]
	c := 0
	if len(p.Configs) > 0 {
		c = p.Configs[0]
	}
	if c < len(p.File.Configs) {
		return lkmlPart{p.File, p.File.Configs[c]}
	}
	return lkmlPart{f: p.File}
}

// env returns key from the configuration's environment, else the file's.
func (p lkmlPart) env(key string) string {
	if v, ok := p.c.Env[key]; ok {
		return v
	}
	if p.f != nil {
		return p.f.Env[key]
	}
	return ""
}

func (p lkmlPart) param(name string) (results.Param, bool) {
	for _, x := range p.c.Params {
		if x.Name == name {
			return x, true
		}
	}
	return results.Param{}, false
}

// lkmlAxes are the robot's axes from the base side: compiler,
// cpufreq_governor, tbox_group (the host), the workload's parameters
// (wis: mode, nr_task as a share of the CPUs, test; others by name) and
// the testcase.
func lkmlAxes(workload string, p lkmlPart) []lkml.Axis {
	var ax []lkml.Axis
	add := func(k, v string) {
		if v != "" {
			ax = append(ax, lkml.Axis{Key: k, Value: strings.ReplaceAll(v, "/", "-")})
		}
	}
	if cc := strings.Fields(p.env("cc.version")); len(cc) == 2 {
		add("compiler", cc[0]+"-"+strings.Split(cc[1], ".")[0])
	}
	gov := p.env("cpu.governor")
	if strings.HasPrefix(gov, "none") {
		gov = "none"
	}
	add("cpufreq_governor", gov)
	add("tbox_group", p.env("hostname"))
	if workload != "wis" {
		add("testcase", "contend-"+workload)
		for _, x := range p.c.Params {
			add(x.Name, x.Display)
		}
		return ax
	}
	add("testcase", "will-it-scale")
	if m, ok := p.param("mode"); ok {
		add("mode", m.Value)
	}
	if t, ok := p.param("tasks"); ok {
		add("nr_task", NrTask(t.Value, p.env("cpu.online")))
	}
	if t, ok := p.param("test"); ok {
		add("test", strings.TrimSuffix(filepath.Base(t.Value), ".c"))
	}
	return ax
}

// NrTask is the robot's nr_task of a task count: a share of the online
// CPUs ("100%") where it is a whole one, else the count.
func NrTask(tasks, cpus string) string {
	t, err1 := strconv.Atoi(tasks)
	c, err2 := strconv.Atoi(cpus)
	if err1 == nil && err2 == nil && c > 0 && (t*100)%c == 0 {
		return strconv.Itoa(t*100/c) + "%"
	}
	return tasks
}

// lkmlSide names a side as the robot's commit: lines do: by its kernel
// (release) where the two sides' kernels differ, else by the side's name;
// the label is the side's name (its files, or its ab label).
func lkmlSide(s comparison.Side, p, other lkmlPart) lkml.Side {
	id := s.Name
	if k := p.env("kernel.release"); k != "" && k != other.env("kernel.release") {
		id = k
		if c := p.env("kernel.commit"); c != "" {
			id = c
		}
	}
	if strings.Contains(id, "/") && !strings.Contains(id, " ") {
		id = filepath.Base(id) // a result file: its name
	}
	id = strings.ReplaceAll(id, " ", "_")
	label := s.Name
	if label == id {
		label = ""
	}
	return lkml.Side{ID: id, Label: label, Unit: "runs"}
}

// WriteAB writes the comparison of an ab file's sides a and b in the
// robot's layout (changed rows and the primary metric).
func WriteAB(w io.Writer, f *results.File, alpha float64) error {
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	r, err := comparison.Build(sides, comparison.Options{Alpha: alpha})
	if err != nil {
		return err
	}
	return Write(w, r, false)
}
