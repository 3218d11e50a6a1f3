package report

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"contend/internal/comparison"
	"contend/internal/plural"
	"contend/internal/textfmt"
)

// pooledName is how the brief report names side i, which pools files:
// its name, when it has one of its own (a campaign's kernel), and how
// many boots or files it pools ("release 6.1.0-57-amd64: 4 boots").
func pooledName(r *comparison.Comparison, i int) string {
	s := r.Sides[i]
	n := len(s.Parts)
	what := plural.N(n, "file", "files") + " pooled"
	if r.SideBootCount(i) == n {
		what = plural.N(n, "boot", "boots")
	}
	name := strings.TrimPrefix(s.Name, s.Label+": ")
	if name == "" || name == strings.Join(s.Parts, " + ") {
		return what
	}
	return name + ": " + what
}

// writeBriefWarnings writes the warnings of a brief report: the
// comparison's own, then the files' own warnings, as each file said them
// when no side pools files, else counted (pooledWarnings).
func writeBriefWarnings(r *comparison.Comparison, w io.Writer) {
	for _, x := range r.Warnings[:max(len(r.Warnings)-len(r.FileWarnings), 0)] {
		textfmt.WriteWrapped(w, "warning: "+x, "  ")
	}
	pooled := false
	for _, s := range r.Sides {
		pooled = pooled || len(s.Parts) > 1
	}
	if !pooled {
		for _, x := range r.FileWarnings {
			textfmt.WriteWrapped(w, "warning: "+x.String(), "  ")
		}
		return
	}
	for _, x := range pooledWarnings(r) {
		textfmt.WriteWrapped(w, "warning: "+x, "  ")
	}
}

// pooledWarnings returns the warnings of the files of r counted, one line
// per kind of warning, where sides pool files (a campaign's boots): what
// the files said, in short (warningHead), with each figure that varies
// as its range, after how many of the files said it and, when not all
// did, how many of each side's:
//
//	8 of 8 boots: running in a virtual machine (cpu flag hypervisor; TCG)
//	3 of 8 boots (A 1 of 4, B 2 of 4): load average 2.31 to 5.10 on 2 CPUs
//
// The full report (--full) gives every file's warnings as they are.
func pooledWarnings(r *comparison.Comparison) []string {
	type kind struct {
		heads []string          // one per file that said it
		files []map[string]bool // by side: the files (their first part) that said it
	}
	var kinds []*kind
	byKey := map[string]*kind{}
	for _, x := range r.FileWarnings {
		h := warningHead(x.Text)
		k := figure.ReplaceAllString(h, "#")
		wk := byKey[k]
		if wk == nil {
			wk = &kind{files: make([]map[string]bool, len(r.Sides))}
			byKey[k] = wk
			kinds = append(kinds, wk)
		}
		if wk.files[x.Side] == nil {
			wk.files[x.Side] = map[string]bool{}
		}
		if !wk.files[x.Side][x.Part] {
			wk.files[x.Side][x.Part] = true
			wk.heads = append(wk.heads, h)
		}
	}
	unit, total := "boots", 0
	for i, s := range r.Sides {
		total += s.Files
		if r.SideBootCount(i) != s.Files {
			unit = "files"
		}
	}
	var out []string
	for _, k := range kinds {
		n := 0
		for _, f := range k.files {
			n += len(f)
		}
		where := fmt.Sprintf("%d of %d %s", n, total, unit)
		if n < total && len(r.Sides) > 1 {
			var per []string
			for i, s := range r.Sides {
				per = append(per, fmt.Sprintf("%s %d of %d", s.Label, len(k.files[i]), s.Files))
			}
			where += " (" + strings.Join(per, ", ") + ")"
		}
		out = append(out, where+": "+spanFigures(k.heads))
	}
	return out
}

// figure is a number in a warning's text.
var figure = regexp.MustCompile(`\d+(\.\d+)?`)

// warningHead is a file warning in short: what it names, before the first
// ": " that says what follows from it ("load average 2.31 on 2 CPUs"); a
// warning headed by one word ("unstable: time varies by 26.4% over 6 runs
// (stdev/mean; ...): see ...") keeps what follows that word, up to its
// next ": " or " (".
func warningHead(text string) string {
	head, rest, ok := strings.Cut(text, ": ")
	if !ok {
		return text
	}
	if strings.Contains(head, " ") {
		return head
	}
	more, _, _ := strings.Cut(rest, ": ")
	more, _, _ = strings.Cut(more, " (")
	return head + ": " + more
}

// spanFigures returns heads, texts that differ at most in their figures,
// as one: each figure that differs between them as its range ("2.31 to
// 5.10"), the others as they are.
func spanFigures(heads []string) string {
	first := heads[0]
	at := figure.FindAllStringIndex(first, -1)
	type span struct {
		lo, hi       float64
		loText, hiTx string
	}
	spans := make([]span, len(at))
	for j, ix := range at {
		v, _ := strconv.ParseFloat(first[ix[0]:ix[1]], 64)
		spans[j] = span{v, v, first[ix[0]:ix[1]], first[ix[0]:ix[1]]}
	}
	for _, h := range heads[1:] {
		for j, ix := range figure.FindAllStringIndex(h, -1) {
			if j >= len(spans) {
				break
			}
			t := h[ix[0]:ix[1]]
			v, _ := strconv.ParseFloat(t, 64)
			if v < spans[j].lo {
				spans[j].lo, spans[j].loText = v, t
			}
			if v > spans[j].hi {
				spans[j].hi, spans[j].hiTx = v, t
			}
		}
	}
	var b strings.Builder
	prev := 0
	for j, ix := range at {
		b.WriteString(first[prev:ix[0]])
		if spans[j].lo == spans[j].hi {
			b.WriteString(first[ix[0]:ix[1]])
		} else {
			b.WriteString(spans[j].loText + " to " + spans[j].hiTx)
		}
		prev = ix[1]
	}
	b.WriteString(first[prev:])
	return b.String()
}
