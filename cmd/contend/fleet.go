package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"contend/internal/campaign"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
)

// FleetStatusFile is the status file the playbook (deploy/ansible) writes
// at the top of its results directory: one line per inventory host.
const FleetStatusFile = "fleet-status.txt"

// fleetItem is one result file of a fleet comparison.
type fleetItem struct {
	part report.Part
	side byte // 'A', 'B', or 0: by its configurations or its order
}

// runFleetCompare is 'contend compare --by KEY': the files grouped by host
// or environment key, B against A within each group (report.BuildFleet).
func runFleetCompare(c *cli.Context, opt report.CompareOptions, format string) error {
	by := c.String("by")
	if by != "host" && !(strings.HasPrefix(by, "env.") && len(by) > 4) {
		return usagef("--by: %q is not accepted; accepted: host, env.KEY (a key of 'contend env', such as env.cpu.model)", by)
	}
	if format != "text" && format != "json" {
		return usagef("--format: %q is not accepted with --by; accepted: text, json", format)
	}
	plotOut := c.String("plot")
	if plotOut != "" {
		switch strings.ToLower(filepath.Ext(plotOut)) {
		case ".svg", ".png":
		default:
			return usagef("--plot: %q has an unknown image format %q; accepted: .svg, .png", plotOut, filepath.Ext(plotOut))
		}
	}
	statusPath := c.String("hosts")
	var items []fleetItem
	add := func(specs []string, side byte) error {
		for _, spec := range specs {
			paths := []string{spec}
			fromDir := false
			if st, err := os.Stat(spec); err == nil && st.IsDir() {
				fromDir = true
				if statusPath == "" {
					if _, err := os.Stat(filepath.Join(spec, FleetStatusFile)); err == nil {
						statusPath = filepath.Join(spec, FleetStatusFile)
					}
				}
				var err error
				var camps []string
				if paths, camps, err = resultFilesUnder(spec); err != nil {
					return err
				}
				for _, d := range camps {
					fmt.Fprintf(c.App.ErrWriter, "warning: %s is a campaign (skipped: its boots are compared by 'contend campaign report %s')\n", d, d)
				}
			}
			for _, p := range paths {
				f, err := results.Read(p)
				if err != nil && fromDir {
					fmt.Fprintf(c.App.ErrWriter, "warning: %v (skipped)\n", err)
					continue
				}
				part, _, err := openPart(p)
				if err != nil && !(f != nil && len(f.Configs) == 2) {
					return err
				}
				if f != nil && len(f.Configs) == 2 && part.File == nil {
					part = report.Part{Name: p, File: f}
				}
				items = append(items, fleetItem{part: part, side: side})
			}
		}
		return nil
	}
	as, bs := c.StringSlice("a"), c.StringSlice("b")
	switch {
	case len(as) > 0 || len(bs) > 0:
		if len(as) == 0 || len(bs) == 0 {
			return usagef("compare: --a and --b go together: give files for both sides")
		}
		if c.NArg() > 0 {
			return usagef("compare: give files either as arguments or with --a/--b, not both (extra: %s)", strings.Join(c.Args().Slice(), " "))
		}
		if err := add(as, 'A'); err != nil {
			return err
		}
		if err := add(bs, 'B'); err != nil {
			return err
		}
	case c.NArg() == 0:
		return usagef("compare --by %s: which result files? give files or a results directory (results/HOST/...)", by)
	default:
		if err := add(c.Args().Slice(), 0); err != nil {
			return err
		}
	}
	var expected []report.FleetHost
	if statusPath != "" {
		hs, err := report.ReadFleetStatus(statusPath)
		if err != nil {
			return usagef("--hosts: %v", err)
		}
		expected = hs
	}
	groups, err := fleetGroups(items, by)
	if err != nil {
		return err
	}
	fr, err := report.BuildFleet(by, groups, expected, opt)
	if err != nil {
		if errors.Is(err, report.ErrIncompatible) {
			return &usageError{err.Error()}
		}
		return err
	}
	if err := fr.Write(c.App.Writer, format); err != nil {
		return err
	}
	if plotOut != "" {
		return drawFleet(c, fr, plotOut)
	}
	return nil
}

// resultFilesUnder lists the .json files under dir, sorted, except those
// of campaign directories (a campaign in a host's results, run step by
// step by the playbook), which it lists apart.
func resultFilesUnder(dir string) (out, campaigns []string, err error) {
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
		return nil, nil, &usageError{err.Error()}
	}
	return out, campaigns, nil
}

// fleetGroups groups the items by key and makes each group's sides: the
// --a/--b files; else the two configurations of its files (ab files);
// else its two single-configuration files, the first the baseline.
func fleetGroups(items []fleetItem, by string) ([]report.FleetGroup, error) {
	byKey := map[string][]fleetItem{}
	var keys []string
	for _, it := range items {
		k, err := report.FleetKey(it.part.Name, it.part.File, by)
		if err != nil {
			return nil, &usageError{err.Error()}
		}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], it)
	}
	sort.Strings(keys)
	var groups []report.FleetGroup
	for _, k := range keys {
		g := report.FleetGroup{Key: k}
		its := byKey[k]
		two := 0
		for _, it := range its {
			if len(it.part.File.Configs) == 2 && it.side == 0 {
				two++
			}
		}
		switch {
		case its[0].side != 0:
			for _, it := range its {
				p := it.part
				if len(p.Configs) == 0 {
					return nil, usagef("%s: %s has %d configurations: select one as FILE:NAME", k, p.Name, len(p.File.Configs))
				}
				if it.side == 'A' {
					g.A.Parts = append(g.A.Parts, p)
				} else {
					g.B.Parts = append(g.B.Parts, p)
				}
			}
			if len(g.A.Parts) == 0 || len(g.B.Parts) == 0 {
				return nil, usagef("%s %s has files on one side only (%s): give its files with both --a and --b", by, k, its[0].part.Name)
			}
		case two == len(its):
			for _, it := range its {
				f := it.part.File
				g.A.Parts = append(g.A.Parts, report.Part{Name: it.part.Name + ":" + f.ConfigName(0), File: f, Configs: []int{0}})
				g.B.Parts = append(g.B.Parts, report.Part{Name: it.part.Name + ":" + f.ConfigName(1), File: f, Configs: []int{1}})
			}
		case len(its) == 2 && two == 0:
			g.A.Parts, g.B.Parts = []report.Part{its[0].part}, []report.Part{its[1].part}
		default:
			var ns []string
			for _, it := range its {
				ns = append(ns, it.part.Name)
			}
			// Not fatal for a directory of a fleet: the group is listed
			// as not compared, with the reason, and the others go on.
			g.Skip = fmt.Sprintf("%s %s has %s (%s): give each group one ab file, or two files, or say the sides with --a and --b",
				by, k, plural.N(len(its), "file", "files"), strings.Join(ns, ", "))
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// drawFleet writes the fleet report as JSON and has the contend-plot
// helper draw it (contend-plot --fleet).
func drawFleet(c *cli.Context, fr *report.FleetReport, out string) error {
	helper, err := helperPath()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "contend-fleet-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fr.Write(tmp, "json"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	cmd := exec.Command(helper, "--out", out, "--fleet", tmp.Name())
	cmd.Stdout, cmd.Stderr = c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return cli.Exit("", ee.ExitCode())
		}
		return fmt.Errorf("plot: running %s: %v", helper, err)
	}
	return nil
}
