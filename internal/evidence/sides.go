package evidence

import (
	"slices"
	"strings"
)

// View returns the part of s that collects names (as Parse returns
// them): the active collectors and availability of those names only. The
// view shares the collectors of s; closing it does nothing, s closes
// them.
func (s *Set) View(names []string) *Set {
	v := &Set{Avail: map[string]string{}, view: true}
	if s == nil {
		return v
	}
	for _, c := range s.Active {
		if slices.Contains(names, c.Name()) {
			v.Active = append(v.Active, c)
		}
	}
	for k, a := range s.Avail {
		if slices.Contains(names, k) {
			v.Avail[k] = a
		}
	}
	return v
}

// Union returns the collector names of every list, in the order of
// Collectors: what a run whose configurations collect different sets
// opens once.
func Union(lists ...[]string) []string {
	var out []string
	for _, n := range Collectors {
		for _, l := range lists {
			if slices.Contains(l, n) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// Describe is a collector list as --evidence takes it: "none" for an
// empty one, else the names joined by commas.
func Describe(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}
