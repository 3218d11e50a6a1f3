package fleet

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"contend/internal/campaign"
	"contend/internal/comparison"
	"contend/internal/plural"
	"contend/internal/results"
)

// StatusFile is the status file the playbook (deploy/ansible) writes at
// the top of its results directory: one line per inventory host.
const StatusFile = "fleet-status.txt"

// An Item is one result file of a fleet comparison.
type Item struct {
	Part comparison.Part
	// Side is 'A' or 'B' for files given with --a or --b, 0 when the
	// side comes from the file's configurations or its order.
	Side byte
}

// Files are the result files of a fleet comparison, with the status file
// found beside them.
type Files struct {
	Items []Item
	// Status is the status file: the one given, else StatusFile in the
	// first directory given that has one.
	Status string
	// Warn receives one line per file or directory skipped.
	Warn io.Writer
}

// Add reads the result files of specs for side (see Item.Side): a
// directory stands for the result files under it (ResultFiles; those it
// cannot read are skipped with a warning), a file is a part as
// comparison.OpenPart selects it, or both configurations of a file with
// two (an ab file).
func (fs *Files) Add(specs []string, side byte) error {
	for _, spec := range specs {
		paths := []string{spec}
		st, err := os.Stat(spec)
		fromDir := err == nil && st.IsDir()
		if fromDir {
			if fs.Status == "" {
				if _, err := os.Stat(filepath.Join(spec, StatusFile)); err == nil {
					fs.Status = filepath.Join(spec, StatusFile)
				}
			}
			var camps []string
			if paths, camps, err = ResultFiles(spec); err != nil {
				return err
			}
			for _, d := range camps {
				fmt.Fprintf(fs.Warn, "warning: %s is a campaign (skipped: its boots are compared by 'contend campaign report %s')\n", d, d)
			}
		}
		for _, p := range paths {
			if err := fs.add(p, side, fromDir); err != nil {
				return err
			}
		}
	}
	return nil
}

// add adds the file at p.
func (fs *Files) add(p string, side byte, fromDir bool) error {
	f, err := results.Read(p)
	if err != nil && fromDir {
		fmt.Fprintf(fs.Warn, "warning: %v (skipped)\n", err)
		return nil
	}
	part, _, err := comparison.OpenPart(p)
	two := f != nil && len(f.Configs) == 2
	if err != nil && !two {
		return err
	}
	if two && part.File == nil {
		part = comparison.Part{Name: p, File: f}
	}
	fs.Items = append(fs.Items, Item{Part: part, Side: side})
	return nil
}

// ResultFiles lists the result files under dir (*.jsonl, and *.json as
// older versions named them), sorted, except those of
// campaign directories (a campaign in a host's results, run step by step
// by the playbook), which it lists apart.
func ResultFiles(dir string) (out, campaigns []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && campaign.IsCampaign(p) {
			campaigns = append(campaigns, p)
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl")) {
			out = append(out, p)
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s holds no result file (*.jsonl or *.json)", dir)
		if len(campaigns) > 0 {
			err = fmt.Errorf("%s holds no result file (*.jsonl or *.json) outside campaigns (%s: see 'contend campaign report')", dir, strings.Join(campaigns, ", "))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return out, campaigns, nil
}

// CheckBy refuses a --by that is neither host nor env.KEY.
func CheckBy(by string) error {
	if by != "host" && !(strings.HasPrefix(by, "env.") && len(by) > 4) {
		return fmt.Errorf("--by: %q is not accepted; accepted: host, env.KEY (a key of 'contend env', such as env.cpu.model)", by)
	}
	return nil
}

// Groups groups the items by their Key for by and makes each group's
// sides: the --a/--b files; else the two configurations of its files (ab
// files); else its two single-configuration files, the first the
// baseline. A group whose files make no two sides is kept with Skip
// saying why (a directory of a fleet goes on without it).
func Groups(items []Item, by string) ([]Group, error) {
	byKey := map[string][]Item{}
	var keys []string
	for _, it := range items {
		k, err := Key(it.Part.Name, it.Part.File, by)
		if err != nil {
			return nil, err
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], it)
	}
	sort.Strings(keys)
	var groups []Group
	for _, k := range keys {
		g, err := group(k, byKey[k], by)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// group makes the sides of the group k of its items its.
func group(k string, its []Item, by string) (Group, error) {
	g := Group{Key: k}
	two := 0
	for _, it := range its {
		if len(it.Part.File.Configs) == 2 && it.Side == 0 {
			two++
		}
	}
	switch {
	case its[0].Side != 0:
		return givenSides(g, its, by)
	case two == len(its):
		for _, it := range its {
			f := it.Part.File
			g.A.Parts = append(g.A.Parts, comparison.Part{Name: it.Part.Name + ":" + f.ConfigName(0), File: f, Configs: []int{0}})
			g.B.Parts = append(g.B.Parts, comparison.Part{Name: it.Part.Name + ":" + f.ConfigName(1), File: f, Configs: []int{1}})
		}
	case len(its) == 2 && two == 0:
		g.A.Parts, g.B.Parts = []comparison.Part{its[0].Part}, []comparison.Part{its[1].Part}
	default:
		var ns []string
		for _, it := range its {
			ns = append(ns, it.Part.Name)
		}
		g.Skip = fmt.Sprintf("%s %s has %s (%s): give each group one ab file, or two files, or say the sides with --a and --b",
			by, k, plural.N(len(its), "file", "files"), strings.Join(ns, ", "))
	}
	return g, nil
}

// givenSides makes the sides of g from files given with --a and --b.
func givenSides(g Group, its []Item, by string) (Group, error) {
	for _, it := range its {
		p := it.Part
		if len(p.Configs) == 0 {
			return g, fmt.Errorf("%s: %s has %d configurations: select one as FILE:NAME", g.Key, p.Name, len(p.File.Configs))
		}
		if it.Side == 'A' {
			g.A.Parts = append(g.A.Parts, p)
		} else {
			g.B.Parts = append(g.B.Parts, p)
		}
	}
	if len(g.A.Parts) == 0 || len(g.B.Parts) == 0 {
		return g, fmt.Errorf("%s %s has files on one side only (%s): give its files with both --a and --b", by, g.Key, its[0].Part.Name)
	}
	return g, nil
}
