package results

import (
	"slices"
	"sort"
	"strings"
)

// A metric family is a Metric whose name ends in ".*": it describes
// every metric whose name starts with what precedes the "*" (the profile
// collector's k.profile.self.SYMBOL, whose symbols are known only once a
// repetition has been sampled). A file's reader replaces each family by
// the metrics of it that the repetitions carry (ExpandFamilies), so that
// what reads a File sees only metrics by name.

// Family tells whether name is a metric family, and its prefix.
func Family(name string) (prefix string, ok bool) {
	if p, ok := strings.CutSuffix(name, "*"); ok && strings.HasSuffix(p, ".") {
		return p, true
	}
	return "", false
}

// nameSet is the metric names a file describes: by name, or by family.
type nameSet struct {
	exact    map[string]bool
	families []string
}

func (n nameSet) has(k string) bool {
	if n.exact[k] {
		return true
	}
	for _, p := range n.families {
		if strings.HasPrefix(k, p) && len(k) > len(p) {
			return true
		}
	}
	return false
}

// ExpandFamilies replaces every metric family of f by a Metric of each
// name of it that f's repetitions carry (its unit, direction and
// description, the member's name appended to the description), in name
// order, where the family stood. Metrics described by name are left. The
// families themselves stay in the file's header (headerMetrics) and are
// found by Metric.
func (f *File) ExpandFamilies() {
	seen := map[string]bool{}
	hasFamily := false
	for _, m := range f.Metrics {
		seen[m.Name] = true
		_, ok := Family(m.Name)
		hasFamily = hasFamily || ok
	}
	if !hasFamily {
		return
	}
	carried := map[string]bool{}
	if f.cols != nil {
		for _, n := range f.cols.Names() {
			carried[n] = true
		}
	} else {
		for i := range f.Reps {
			for k := range f.Reps[i].Metrics.All() {
				carried[k] = true
			}
		}
	}
	var out []Metric
	for _, m := range f.Metrics {
		prefix, ok := Family(m.Name)
		if !ok {
			out = append(out, m)
			continue
		}
		if !slices.ContainsFunc(f.families, func(x Metric) bool { return x.Name == m.Name }) {
			f.families = append(f.families, m)
		}
		var members []string
		for k := range carried {
			if strings.HasPrefix(k, prefix) && len(k) > len(prefix) && !seen[k] {
				members = append(members, k)
			}
		}
		sort.Strings(members)
		for _, k := range members {
			mm := m
			mm.Name = k
			mm.Desc = m.Desc + ": " + strings.TrimPrefix(k, prefix)
			out = append(out, mm)
			seen[k] = true
		}
	}
	f.Metrics = out
	f.fillFamilies()
}

// fillFamilies gives every repetition that carries a member of a family
// the family's other members as 0: a collector records only the members
// above its threshold (a profile's symbols of at least 0.5%), so a
// member missing from such a repetition is a share below it, not an
// unknown; a repetition that carries no member at all (the collector
// failed there) is left without.
func (f *File) fillFamilies() {
	for _, fam := range f.families {
		prefix, _ := Family(fam.Name)
		var members []string
		for _, m := range f.Metrics {
			if strings.HasPrefix(m.Name, prefix) && len(m.Name) > len(prefix) {
				members = append(members, m.Name)
			}
		}
		if f.cols != nil {
			f.cols.fillFamily(prefix, members)
			continue
		}
		for i := range f.Reps {
			r := &f.Reps[i]
			carries := false
			for k := range r.Metrics.All() {
				if strings.HasPrefix(k, prefix) {
					carries = true
					break
				}
			}
			if !carries {
				continue
			}
			for _, k := range members {
				if _, ok := r.Metrics.Lookup(k); !ok {
					r.Metrics.Set(k, 0)
				}
			}
		}
	}
}

// fillFamily is fillFamilies of one family in columns.
func (c *Columns) fillFamily(prefix string, members []string) {
	cols := make([]int, 0, len(members))
	for _, m := range members {
		if k, ok := c.column(m); ok {
			cols = append(cols, k)
		}
	}
	for i := 0; i < c.n; i++ {
		carries := false
		for _, k := range cols {
			if c.has[k][i] {
				carries = true
				break
			}
		}
		if !carries {
			continue
		}
		for _, k := range cols {
			if !c.has[k][i] {
				c.vals[k][i], c.has[k][i] = 0, true
			}
		}
	}
}

// headerMetrics is Metrics with the families ExpandFamilies took out.
func (f *File) headerMetrics() []Metric {
	if len(f.families) == 0 {
		return f.Metrics
	}
	return append(slices.Clip(f.Metrics), f.families...)
}
