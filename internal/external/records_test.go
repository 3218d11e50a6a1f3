package external

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"contend/internal/results"
)

// recordsBefore is Records as it was before it was made to allocate less
// (kept as the reference of TestRecordsSameAsBefore).
func recordsBefore(specs []Spec, log string, lo, hi int) ([]Record, []Spec, []string, error) {
	if len(specs) == 0 {
		return nil, nil, nil, fmt.Errorf("no metric to look for")
	}
	type match struct {
		spec       int
		start, end int
		value      string
	}
	var ms []match
	for i, s := range specs {
		for _, loc := range s.Regex.FindAllStringSubmatchIndex(log, -1) {
			if loc[2] < 0 {
				continue
			}
			ms = append(ms, match{spec: i, start: loc[0], end: loc[1], value: log[loc[2]:loc[3]]})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if ms[i].start != ms[j].start {
			return ms[i].start < ms[j].start
		}
		return ms[i].spec < ms[j].spec
	})
	var recs []Record
	var starts []int // byte offset of each record's start
	var seen []map[string]int
	var warns []string
	orphans := map[string]int{}
	// line is the line number at byte offset counted: matches come in
	// order, so counting newlines from the last match keeps this O(len(log)).
	line, counted := 1, 0
	for _, m := range ms {
		s := specs[m.spec]
		if m.spec == 0 {
			line += strings.Count(log[counted:m.start], "\n")
			counted = m.start
			recs = append(recs, Record{Line: line, Metrics: results.ValuesOf(map[string]float64{})})
			starts = append(starts, lineStart(log, m.start))
			seen = append(seen, map[string]int{})
		}
		if len(recs) == 0 {
			orphans[s.Name]++
			continue
		}
		k := len(recs) - 1
		seen[k][s.Name]++
		if seen[k][s.Name] > 1 {
			if recs[k].Err == "" {
				recs[k].Err = fmt.Sprintf("metric %s matched %d times in the record starting at line %d", s.Name, seen[k][s.Name], recs[k].Line)
			}
			continue
		}
		v, err := s.Value(m.value)
		if err != nil {
			if recs[k].Err == "" {
				recs[k].Err = err.Error()
			}
			continue
		}
		recs[k].Metrics.Set(s.Name, v)
	}
	if lo > 0 || hi > 0 {
		// The range and its wording as Records says them now
		// (selectRange: the whole range, the cause, a cut range warned).
		var warn string
		var err error
		if lo, hi, warn, err = selectRange(lo, hi, len(recs), specs[0].Name); err != nil {
			return nil, nil, nil, err
		}
		if warn != "" {
			warns = append(warns, warn)
		}
		recs, starts, seen = recs[lo-1:hi], starts[lo-1:hi], seen[lo-1:hi]
	}
	used := []Spec{specs[0]}
	for _, s := range specs[1:] {
		found := false
		for k := range recs {
			found = found || seen[k][s.Name] > 0
		}
		if found || len(recs) == 0 {
			used = append(used, s)
		} else {
			warns = append(warns, fmt.Sprintf("metric %s: not in any record of the log; left out", s.Name))
		}
	}
	for k := range recs {
		end := len(log)
		if k+1 < len(starts) {
			end = starts[k+1]
		} else if next := nextStart(specs[0], log, starts[k]); next > 0 {
			end = next
		}
		recs[k].Text = strings.TrimRight(log[starts[k]:end], "\n")
		for _, s := range used {
			if seen[k][s.Name] == 0 && recs[k].Err == "" {
				recs[k].Err = fmt.Sprintf("metric %s: no match of /%s/ in the record starting at line %d", s.Name, s.Regex, recs[k].Line)
			}
		}
		if recs[k].Err != "" {
			recs[k].Metrics = nil
		}
	}
	for _, name := range sortedKeys(orphans) {
		warns = append(warns, fmt.Sprintf("%d match(es) of %s before the first match of %s were ignored", orphans[name], name, specs[0].Name))
	}
	return recs, used, warns, nil
}

// TestRecordsSameAsBefore checks Records against recordsBefore on random
// logs: several metrics (two of one name), records missing a metric or
// matching one twice, unparsable values, matches before the first record,
// selections.
func TestRecordsSameAsBefore(t *testing.T) {
	specs := []Spec{mustSpec(t, `t=took (\d+) ns:ns`), mustSpec(t, `pages=(\d+) pages`), mustSpec(t, `x=x=(\S+)`), mustSpec(t, `pages=p(\d+)`)}
	pieces := []string{"took 12 ns", "took 7 ns", "3 pages", "p4", "x=1.5", "x=bad", "noise", "", "took 1 ns 2 pages"}
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 400 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString([]string{"\n", " ", "\n\n"}[rng.IntN(3)])
		}
		log := b.String()
		sp := specs[:1+rng.IntN(len(specs))]
		lo, hi := 0, 0
		if trial%3 == 0 {
			lo, hi = rng.IntN(4), rng.IntN(6)
			if hi > 0 && lo > hi {
				lo, hi = hi, lo
			}
		}
		r1, u1, w1, e1 := Records(sp, log, lo, hi)
		r2, u2, w2, e2 := recordsBefore(sp, log, lo, hi)
		if fmt.Sprint(e1) != fmt.Sprint(e2) || !reflect.DeepEqual(r1, r2) || !reflect.DeepEqual(w1, w2) || len(u1) != len(u2) {
			t.Fatalf("log %q specs %d select %d..%d:\n now    %+v %v %v\n before %+v %v %v", log, len(sp), lo, hi, r1, w1, e1, r2, w2, e2)
		}
		for i := range u1 {
			if u1[i].Name != u2[i].Name || u1[i].Regex.String() != u2[i].Regex.String() {
				t.Fatalf("used specs differ: %v %v", u1, u2)
			}
		}
	}
}

// TestScanEachReusesOneRecord: Each makes the records Records returns one
// at a time, in one Record and one map reused (an import of 100,000
// records holds no more), and stops when fn says so.
func TestScanEachReusesOneRecord(t *testing.T) {
	specs := []Spec{mustSpec(t, `t=took (\d+) ns:ns`), mustSpec(t, `pages=(\d+) pages`)}
	log := "took 1 ns 2 pages\ntook 3 ns\n4 pages\ntook 5 ns 6 pages 7 pages\ntook 8 ns 9 pages\n"
	want, _, _, err := Records(specs, log, 0, 0)
	if err != nil || len(want) != 4 {
		t.Fatalf("Records: %v, %d records", err, len(want))
	}
	sc, _, _, err := Scan(specs, log, 0, 0)
	if err != nil || sc.Len() != 4 {
		t.Fatalf("Scan: %v", err)
	}
	var rec *Record
	var m results.Values
	n := 0
	sc.Each(func(i int, r *Record) bool {
		if rec != nil && r != rec {
			t.Errorf("record %d passed in a new Record", i)
		}
		if r.Metrics != nil {
			if m != nil && reflect.ValueOf(r.Metrics).UnsafePointer() != reflect.ValueOf(m).UnsafePointer() {
				t.Errorf("record %d has a new map", i)
			}
			m = r.Metrics
		}
		rec = r
		if i != n || !reflect.DeepEqual(*r, want[i]) {
			t.Errorf("record %d: %+v, want %+v", i, *r, want[i])
		}
		n++
		return i < 2
	})
	if n != 3 {
		t.Errorf("Each made %d records after fn said stop at the third", n)
	}
}
