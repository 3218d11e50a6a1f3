package evidence

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Profile is one repetition's sampled call graphs, folded per symbol:
// Self is each symbol's share of the samples (weighted by period) in
// which it was the sampled function, Children its share of those in
// which it was anywhere on the stack (counted once per sample), both in
// percent of the samples taken. Folded holds the stacks as flame-graph
// tools read them ("root;...;leaf" -> period).
type Profile struct {
	Samples  int
	Total    float64
	Self     map[string]float64
	Children map[string]float64
	Folded   map[string]float64
}

// foldScript reads `perf script -F comm,period,ip,sym,dso` output with
// call chains (a header line per sample, then its frames, leaf first,
// indented, then a blank line) and folds it.
func foldScript(r io.Reader) (*Profile, error) {
	p := &Profile{Self: map[string]float64{}, Children: map[string]float64{}, Folded: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var period float64
	var frames []string
	inSample := false
	flush := func() {
		if !inSample {
			return
		}
		inSample = false
		if len(frames) == 0 {
			frames = []string{"[unknown]"}
		}
		p.Samples++
		p.Total += period
		p.Self[frames[0]] += period
		seen := map[string]bool{}
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				p.Children[f] += period
			}
		}
		rev := make([]string, len(frames))
		for i, f := range frames {
			rev[len(frames)-1-i] = strings.ReplaceAll(f, ";", ":")
		}
		p.Folded[strings.Join(rev, ";")] += period
		frames = frames[:0]
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if inSample {
				frames = append(frames, frameSymbol(line))
			}
		default:
			flush()
			inSample = true
			period = samplePeriod(line)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.Total > 0 {
		for _, m := range []map[string]float64{p.Self, p.Children} {
			for k, v := range m {
				m[k] = 100 * v / p.Total
			}
		}
	}
	return p, nil
}

// samplePeriod is the last number of a sample's header line ("comm
// period"; 1 when there is none, as in a script without the period).
func samplePeriod(line string) float64 {
	f := strings.Fields(line)
	for i := len(f) - 1; i >= 0; i-- {
		if x, err := strconv.ParseFloat(strings.TrimSuffix(f[i], ":"), 64); err == nil && x > 0 {
			return x
		}
	}
	return 1
}

// frameSymbol is the function of a frame line "addr sym+off (dso)": the
// symbol without its offset, or "[unknown] (dso base name)" when perf
// could not name it.
func frameSymbol(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "[unknown]"
	}
	rest := f[1:]
	dso := ""
	if last := rest[len(rest)-1]; strings.HasPrefix(last, "(") && strings.HasSuffix(last, ")") {
		dso = strings.Trim(last, "()")
		rest = rest[:len(rest)-1]
	}
	sym := strings.Join(rest, " ")
	if i := strings.LastIndex(sym, "+0x"); i > 0 {
		sym = sym[:i]
	}
	if sym == "" || sym == "[unknown]" {
		if i := strings.LastIndex(dso, "/"); i >= 0 {
			dso = dso[i+1:]
		}
		if dso == "" || dso == "[unknown]" {
			return "[unknown]"
		}
		return "[unknown] (" + dso + ")"
	}
	return sym
}

// Top returns the symbols of m with at least min percent, largest first
// (ties by name), at most n of them.
func Top(m map[string]float64, min float64, n int) []string {
	var out []string
	for k, v := range m {
		if v >= min {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
