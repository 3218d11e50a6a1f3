package comparison

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"contend/internal/env"
	"contend/internal/results"
)

// A Diff is a parameter or environment key whose value differs; Values
// has one entry per side (distinct values of its parts joined by " | ").
type Diff struct {
	Key    string
	Values []string
}

// paramDiffs lists the parameters whose values differ between any two
// parts.
func paramDiffs(sides []Side) []Diff {
	var order []string
	seen := map[string]bool{}
	per := func(p Part, name string) []string {
		var vs []string
		for _, c := range p.Configs {
			for _, pa := range p.File.Configs[c].Params {
				if pa.Name == name {
					d := pa.Shown()
					vs = append(vs, d)
				}
			}
		}
		if len(vs) == 0 {
			return []string{"(none)"}
		}
		return vs
	}
	for _, s := range sides {
		for _, p := range s.Parts {
			for _, c := range p.Configs {
				for _, pa := range p.File.Configs[c].Params {
					if !seen[pa.Name] {
						seen[pa.Name] = true
						order = append(order, pa.Name)
					}
				}
			}
		}
	}
	var out []Diff
	for _, name := range order {
		all := map[string]bool{}
		var vals []string
		for _, s := range sides {
			var vs []string
			for _, p := range s.Parts {
				for _, v := range per(p, name) {
					all[v] = true
					vs = append(vs, v)
				}
			}
			vals = append(vals, joinDistinct(vs))
		}
		if len(all) > 1 {
			out = append(out, Diff{Key: name, Values: vals})
		}
	}
	return out
}

// PartEnv is the fingerprint of a part: the file's environment with the
// settings of its configurations.
func PartEnv(p Part) env.Fingerprint {
	fp := env.Fingerprint{}
	for k, v := range p.File.Env {
		fp[k] = v
	}
	for _, c := range p.Configs {
		for k, v := range p.File.Configs[c].Env {
			fp[k] = v
		}
	}
	return fp
}

// buildDiffs returns the keys of diffs that describe the build (sources,
// compilers, flags) and are recorded on every side: an older file without
// them says nothing about how it was built.
func buildDiffs(diffs []Diff) []string {
	var out []string
	for _, d := range diffs {
		if !env.BuildKey(d.Key) || strings.Contains(strings.Join(d.Values, "\x00"), "(not recorded)") {
			continue
		}
		out = append(out, d.Key)
	}
	return out
}

// thpKeys are the fingerprint's transparent huge page settings.
var thpKeys = []string{"thp.enabled", "thp.defrag", "thp.use_zero_page"}

// pageReportingCause is the warning when the sides differ in free page
// reporting (env key mem.page_reporting, tune.PageReporting), or "".
func pageReportingCause(diffs []Diff, sides []SideReport) string {
	for _, d := range diffs {
		if d.Key != "mem.page_reporting" || strings.Contains(strings.Join(d.Values, "\x00"), "(not recorded)") {
			continue
		}
		var vs []string
		for i, v := range d.Values {
			vs = append(vs, sides[i].Label+" "+cmp.Or(v, "(unknown)"))
		}
		return "free page reporting differs between the sides (" + strings.Join(vs, ", ") + "): where it is on, the host " +
			"takes back the memory a run frees and the next run faults it in again from the host, so a workload that allocates " +
			"memory is slower there; compare on guests set alike"
	}
	return ""
}

// envCauses returns a warning for each known cause among diffs: THP set
// differently on the sides (always against madvise or never, or a kernel
// without THP) changes page faults, memory and their times by itself.
// A value not recorded by a side is no evidence of a difference.
func envCauses(diffs []Diff, sides []SideReport) []string {
	var thp []string
	for _, d := range diffs {
		if !slices.Contains(thpKeys, d.Key) || strings.Contains(strings.Join(d.Values, "\x00"), "(not recorded)") {
			continue
		}
		var vs []string
		for i, v := range d.Values {
			if v == "" {
				v = "(unknown)"
			}
			vs = append(vs, sides[i].Label+" "+v)
		}
		if d.Key == "thp.enabled" {
			// The setting that decides: the others follow from it
			// (and are "not built" with it).
			thp = []string{d.Key + ": " + strings.Join(vs, ", ")}
			break
		}
		thp = append(thp, d.Key+": "+strings.Join(vs, ", "))
	}
	var out []string
	if cfg := configCause(diffs, sides); cfg != "" {
		out = append(out, cfg)
	}
	if pr := pageReportingCause(diffs, sides); pr != "" {
		out = append(out, pr)
	}
	if len(thp) == 0 {
		return out
	}
	return append(out, fmt.Sprintf("transparent huge pages differ between the sides (%s): that alone changes page faults, "+
		"memory and their times (THP 'always' maps the huge zero page on read faults, one fault per 2 MiB instead of one per "+
		"4 KiB page); compare with the same THP setting, or run faultme with --thp never on every side", strings.Join(thp, "; ")))
}

// configCause says which options that change contention differ between
// the kernels contend built from a tree (kbuild.config.NAME, recorded by
// internal/kbuild), "" when none does.
func configCause(diffs []Diff, sides []SideReport) string {
	var opts []string
	for _, d := range diffs {
		name, ok := strings.CutPrefix(d.Key, "kbuild.config.")
		if !ok {
			continue
		}
		var vs []string
		for i, v := range d.Values {
			vs = append(vs, sides[i].Label+" "+v)
		}
		opts = append(opts, "CONFIG_"+name+": "+strings.Join(vs, ", "))
	}
	if len(opts) == 0 {
		return ""
	}
	return fmt.Sprintf("the kernels' configs differ in options that change what contention looks like (%s): a difference "+
		"may come from the config, not the code; build both sides with one config", strings.Join(opts, "; "))
}

// envDiffs lists the environment keys (env.Diff) that differ between any
// two parts.
func envDiffs(sides []Side) []Diff {
	var fps []env.Fingerprint
	var side []int
	for i, s := range sides {
		for _, p := range s.Parts {
			fps = append(fps, PartEnv(p))
			side = append(side, i)
		}
	}
	differ := map[string]bool{}
	union := env.Fingerprint{}
	for i := range fps {
		for k := range fps[i] {
			union[k] = ""
		}
		for j := i + 1; j < len(fps); j++ {
			for _, k := range env.Diff(fps[i], fps[j]) {
				differ[k] = true
			}
		}
	}
	var out []Diff
	for _, k := range union.Keys() {
		if !differ[k] {
			continue
		}
		d := Diff{Key: k, Values: make([]string, len(sides))}
		vs := make([][]string, len(sides))
		for i, fp := range fps {
			v, ok := fp[k]
			if !ok {
				v = "(not recorded)"
			}
			vs[side[i]] = append(vs[side[i]], v)
		}
		for i := range sides {
			d.Values[i] = joinDistinct(vs[i])
		}
		out = append(out, d)
	}
	return out
}

func joinDistinct(vs []string) string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return strings.Join(out, " | ")
}

// A FileWarning is a warning a result file recorded (its environment,
// an unstable run, a torn line): Side is the side whose part first holds
// the file, Part that part's name (its ":CONFIG" selector removed), which
// names the file.
type FileWarning struct {
	Side       int
	Part, Text string
}

// String is the warning as the full report says it: prefixed with its
// file's name.
func (x FileWarning) String() string {
	if x.Part == "" {
		return x.Text
	}
	return x.Part + ": " + x.Text
}

// fileKey identifies a result file among the parts of the sides: parts
// that select configurations of one file (each part read on its own)
// share it: its workload and start.
func fileKey(f *results.File) string { return f.Workload + "\x00" + f.Start.String() }

// fileWarnings returns the warnings of the files of sides, each with the
// name of the file's first part (its ":CONFIG" selector removed), once
// per file even when several parts select configurations of the same
// file.
func fileWarnings(sides []Side) []FileWarning {
	seen := map[string]bool{}
	var out []FileWarning
	for si, s := range sides {
		for _, p := range s.Parts {
			f := p.File
			key := fileKey(f)
			if seen[key] {
				continue
			}
			seen[key] = true
			name := p.Name
			for _, c := range p.Configs {
				for _, sel := range []string{f.Configs[c].Name, fmt.Sprint(c)} {
					if sel != "" && strings.HasSuffix(name, ":"+sel) {
						name = strings.TrimSuffix(name, ":"+sel)
					}
				}
			}
			for _, x := range f.Warnings {
				out = append(out, FileWarning{Side: si, Part: name, Text: x})
			}
		}
	}
	return out
}
