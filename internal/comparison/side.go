package comparison

import (
	"slices"

	"contend/internal/results"
)

// A SideReport is a side with its counts.
type SideReport struct {
	Label string // A, B, C ...
	Name  string
	Parts []string
	// Files is the number of distinct result files among Parts (parts
	// may select configurations of one file).
	Files  int
	Counts map[string]int // measured repetitions by status, all parts
	// measured are the successful measured repetitions, in the side's
	// order, and metrics each metric's values among them: 20 bytes a
	// value, or 12 where the value is the file's own column (a side of
	// one file whose every repetition is measured and has the metric).
	measured []origin
	metrics  map[string]sideMetric
	// rows, when set, are the side's one file whose every repetition is
	// measured, of one configuration: measured[i] is then row i's origin,
	// not stored.
	rows *results.Columns
}

// len returns the number of measured repetitions.
func (s *SideReport) len() int {
	if s.rows != nil {
		return s.rows.Len()
	}
	return len(s.measured)
}

// originAt returns the origin of measured repetition p.
func (s *SideReport) originAt(p int) origin {
	if s.rows != nil {
		return origin{0, int32(s.rows.Index(p)), int32(p + 1)}
	}
	return s.measured[p]
}

// origin is where a measured repetition of a side comes from.
type origin struct {
	part, rep int32
	ord       int32 // number among the measured repetitions of its configuration, from 1
}

// sideMetric holds a metric's values on a side: vals[i] is of repetition
// measured[at[i]], or measured[i] when at is nil.
type sideMetric struct {
	vals []float64
	at   []int32
}

// obs is one value with where it came from.
type obs struct {
	origin
	v float64
}

// Values returns the values of metric in the side's order, shared by
// every caller (maybe the file's own column): not to be changed.
func (s *SideReport) Values(metric string) []float64 {
	return s.metrics[metric].vals
}

// Count returns the number of values of metric.
func (s *SideReport) Count(metric string) int { return len(s.metrics[metric].vals) }

// origin returns where value i of metric comes from.
func (s *SideReport) origin(metric string, i int) origin {
	if at := s.metrics[metric].at; at != nil {
		return s.originAt(int(at[i]))
	}
	return s.originAt(i)
}

// obsOf returns the values of metric with where each comes from.
func (s *SideReport) obsOf(metric string) []obs {
	xs := s.Values(metric)
	out := make([]obs, len(xs))
	for i, x := range xs {
		out[i] = obs{s.origin(metric, i), x}
	}
	return out
}

func collectSide(label string, s Side) SideReport {
	sr := SideReport{Label: label, Name: s.Name, Counts: map[string]int{}, metrics: map[string]sideMetric{}}
	files := map[string]bool{}
	for pi, p := range s.Parts {
		sr.Parts = append(sr.Parts, p.Name)
		if k := fileKey(p.File); !files[k] {
			files[k] = true
			sr.Files++
		}
		sel := map[int]bool{}
		for _, c := range p.Configs {
			sel[c] = true
		}
		// The file's columns, a metric at a time: which repetitions are
		// measured ones of the part, and their number in their
		// configuration, then each metric's column.
		cols := p.File.Columns()
		nok := 0
		for i := range cols.Len() {
			if !cols.Warmup(i) && sel[cols.Config(i)] {
				st := cols.Status(i)
				sr.Counts[st]++
				if st == results.StatusOK {
					nok++
				}
			}
		}
		first := sr.len()
		var rows []int32 // the file's row of each measured repetition; nil: every row
		if len(s.Parts) == 1 && nok == cols.Len() && len(p.Configs) == 1 {
			// Every repetition of the one file, of one configuration:
			// where each comes from is its row.
			sr.rows = cols
		} else {
			rows = make([]int32, 0, nok)
			if sr.measured == nil {
				sr.measured = make([]origin, 0, nok)
			}
			ord := map[int]int{}
			for i := range cols.Len() {
				c := cols.Config(i)
				if cols.Warmup(i) || !sel[c] {
					continue
				}
				ord[c]++
				if cols.Status(i) == results.StatusOK {
					sr.measured = append(sr.measured, origin{int32(pi), int32(cols.Index(i)), int32(ord[c])})
					rows = append(rows, int32(i))
				}
			}
		}
		row := func(j int) int {
			if rows == nil {
				return j
			}
			return int(rows[j])
		}
		for _, k := range cols.Names() {
			vals, has := cols.Metric(k)
			m := sr.metrics[k]
			if m.vals == nil && rows == nil && !slices.Contains(has, false) {
				sr.metrics[k] = sideMetric{vals: vals} // every row, in order: the column itself
				continue
			}
			for j := range nok {
				i := row(j)
				if !has[i] {
					continue
				}
				if m.vals == nil {
					m.vals = make([]float64, 0, nok) // most have every metric
				}
				if m.at == nil && len(m.vals) != first+j {
					// A repetition before this one lacks the metric.
					m.at = make([]int32, len(m.vals), cap(m.vals))
					for x := range m.at {
						m.at[x] = int32(x)
					}
				}
				m.vals = append(m.vals, vals[i])
				if m.at != nil {
					m.at = append(m.at, int32(first+j))
				}
			}
			if m.vals != nil {
				sr.metrics[k] = m
			}
		}
	}
	return sr
}
