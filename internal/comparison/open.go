package comparison

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"contend/analysis"
	"contend/internal/results"
)

// OpenPart reads the result file of spec, "FILE" or "FILE:CONFIG" (a
// configuration by name, or by index from 0), and selects its
// configuration; a file of one configuration needs no selector. sweep is
// true for a sweep file given without a selector: all its configurations
// are selected, to be compared curve against curve. Every error is of the
// input: a file that cannot be read, or a selector that selects nothing.
func OpenPart(spec string) (p Part, sweep bool, err error) {
	path, sel := spec, ""
	if strings.TrimSpace(spec) == "" {
		return p, false, fmt.Errorf("compare: an empty file name; accepted: result files, such as before.json after.json")
	}
	if _, statErr := os.Stat(spec); statErr != nil {
		if i := strings.LastIndex(spec, ":"); i > 0 {
			path, sel = spec[:i], spec[i+1:]
		}
	}
	f, err := results.Read(path, results.WithoutOutputs, results.AsColumns)
	if err != nil {
		return p, false, err
	}
	if err := f.CheckRepeated(); err != nil {
		return p, false, fmt.Errorf("%s: %v", path, err)
	}
	p = Part{Name: spec, File: f}
	if sel == "" {
		return wholeFile(p, path)
	}
	for i, cf := range f.Configs {
		if cf.Name == sel {
			p.Configs = []int{i}
			return p, false, nil
		}
	}
	if i, err := strconv.Atoi(sel); err == nil && i >= 0 && i < len(f.Configs) {
		p.Configs = []int{i}
		return p, false, nil
	}
	return p, false, fmt.Errorf("%s: no configuration %q; it has %s (or an index from 0 to %d)",
		path, sel, configNames(f), len(f.Configs)-1)
}

// wholeFile selects the configurations of p's file given without a
// selector: its one configuration, or every one of a sweep.
func wholeFile(p Part, path string) (Part, bool, error) {
	f := p.File
	switch {
	case len(f.Configs) == 1:
		p.Configs = []int{0}
		return p, false, nil
	case f.Kind == "sweep":
		for i := range f.Configs {
			p.Configs = append(p.Configs, i)
		}
		return p, true, nil
	}
	ex := f.Configs[0].Name
	if ex == "" {
		ex = "0"
	}
	return p, false, fmt.Errorf("%s has %d configurations (%s): select one as %s:%s (a name, or an index from 0)",
		path, len(f.Configs), configNames(f), path, ex)
}

// configNames lists the configurations of f by name.
func configNames(f *results.File) string {
	var ns []string
	for i := range f.Configs {
		ns = append(ns, f.ConfigName(i))
		if len(ns) == 8 && len(f.Configs) > 9 {
			ns = append(ns, fmt.Sprintf("... %d more", len(f.Configs)-8))
			break
		}
	}
	return strings.Join(ns, ", ")
}

// SameRuns warns when the same configuration of the same file is given
// twice (compare a.json a.json): the report is then a comparison of a file
// with itself, which no verdict can make meaningful. It returns one
// sentence per repeated part.
func SameRuns(sides []Side) []string {
	var out []string
	seen := map[string]string{}
	for _, s := range sides {
		for _, p := range s.Parts {
			key := partKey(p)
			if first, ok := seen[key]; ok {
				out = append(out, fmt.Sprintf("%s and %s are the same runs: this compares a file with itself", first, p.Name))
				continue
			}
			seen[key] = p.Name
		}
	}
	return out
}

// partKey identifies the runs of p: the file (by device and inode where it
// can be read, else by its start time and command) and the configurations.
func partKey(p Part) string {
	path := p.Name
	if _, err := os.Stat(path); err != nil {
		if i := strings.LastIndex(path, ":"); i > 0 {
			path = path[:i]
		}
	}
	id := ""
	if st, err := os.Stat(path); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			id = fmt.Sprintf("%d:%d", sys.Dev, sys.Ino)
		}
	}
	if id == "" {
		id = p.File.Start.String() + strings.Join(p.File.Command, " ")
	}
	return fmt.Sprint(id, p.Configs)
}

// Tests are the words of the hypothesis tests compare can run (its
// --test), ParseTest's words.
var Tests = []string{"mannwhitney", "welch"}

// ParseTest returns the test a word of Tests names: mannwhitney is the
// Mann-Whitney U test (the default, and the test the MDE is computed
// for), welch Welch's t-test.
func ParseTest(word string) (analysis.Test, error) {
	switch word {
	case "", "mannwhitney":
		return analysis.TestMannWhitney, nil
	case "welch":
		return analysis.TestWelch, nil
	}
	return 0, fmt.Errorf("--test: %q is not accepted; accepted: %s", word, strings.Join(Tests, ", "))
}

// Sides makes the sides of a comparison from the file specs of each side
// (OpenPart): a side's name joins its parts' names with " + ". sweeps are
// the sweep files among them (given without a selector), which are
// compared curve against curve instead. The files are read two at a time
// (openParts); the error is that of the first spec that has one.
func Sides(specs [][]string) (sides []Side, sweeps []*results.File, err error) {
	var all []string
	for _, files := range specs {
		all = append(all, files...)
	}
	opened := openParts(all)
	for _, files := range specs {
		var s Side
		var names []string
		for range files {
			o := opened[0]
			opened = opened[1:]
			if o.err != nil {
				return nil, nil, o.err
			}
			if o.sweep {
				sweeps = append(sweeps, o.part.File)
			}
			s.Parts = append(s.Parts, o.part)
			names = append(names, o.part.Name)
		}
		s.Name = strings.Join(names, " + ")
		sides = append(sides, s)
	}
	return sides, sweeps, nil
}

// openedPart is what OpenPart returned for one spec.
type openedPart struct {
	part  Part
	sweep bool
	err   error
}

// openParts opens the parts of specs (OpenPart), in their order, two at
// a time: the first pass of a large file (reading it to count its lines)
// runs on one CPU, and the decoding's pieces leave a CPU idle between
// them, which the other file takes (compare of two files of 100,000
// repetitions, 2 CPUs). Two, not more: each read holds a buffer
// (results.Read), and the files' columns are kept anyway.
func openParts(specs []string) []openedPart {
	out := make([]openedPart, len(specs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(2, len(specs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := &out[i]
				o.part, o.sweep, o.err = OpenPart(specs[i])
			}
		}()
	}
	for i := range specs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// CheckSides refuses files given with --a (a) but not --b (b) or the other
// way round, and either with files as arguments (args).
func CheckSides(a, b, args []string) error {
	switch {
	case len(a) == 0 && len(b) == 0:
		return nil
	case len(a) == 0 || len(b) == 0:
		return fmt.Errorf("compare: --a and --b go together: give files for both sides")
	case len(args) > 0:
		return fmt.Errorf("compare: give files either as arguments or with --a/--b, not both (extra: %s)", strings.Join(args, " "))
	}
	return nil
}

// Specs returns the file specs of each side of 'contend compare': --a
// (a) and --b (b), else one side per argument; or dir, when the one
// argument is a directory (a campaign).
func Specs(a, b, args []string) (specs [][]string, dir string, err error) {
	if err := CheckSides(a, b, args); err != nil || len(a) > 0 {
		return [][]string{a, b}, "", err
	}
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			return nil, args[0], nil
		}
	}
	if len(args) < 2 {
		return nil, "", fmt.Errorf("compare needs a baseline and at least one other result file, got %d (see 'contend compare --help')", len(args))
	}
	for _, x := range args {
		specs = append(specs, []string{x})
	}
	return specs, "", nil
}
