package logimport

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/summary"
	"contend/internal/testsize"
)

// importRepsBefore is how import made its repetitions before it streamed
// them (kept as the reference of TestImportStreamSameAsBefore): every
// record held, its output cut from one string.
func importRepsBefore(recs []external.Record, skip int) []results.Rep {
	n := 0
	for _, r := range recs {
		n += len("[line 0000000000]\n") + len(r.Text)
	}
	var b strings.Builder
	b.Grow(n)
	ends := make([]int, len(recs))
	for i, r := range recs {
		b.WriteString("[line ")
		b.WriteString(strconv.Itoa(r.Line + skip))
		b.WriteString("]\n")
		b.WriteString(r.Text)
		ends[i] = b.Len()
	}
	all := b.String()
	reps := make([]results.Rep, 0, len(recs))
	for i, start := 0, 0; i < len(recs); i++ {
		rep := results.Rep{Index: i, Round: i, Metrics: recs[i].Metrics, Output: all[start:ends[i]]}
		start = ends[i]
		rep.Status = results.StatusOK
		if recs[i].Err != "" {
			rep.Status, rep.Error = results.StatusFailed, recs[i].Err
		}
		reps = append(reps, rep)
	}
	return reps
}

// TestImportStreamSameAsBefore: on random logs (several metrics, records
// missing one or matching one twice, values that are not numbers,
// selections, lines skipped by --from, and one log of 30,000 records,
// several pieces of the file), the file import streams record by record
// holds the same bytes as the file written from all the records held,
// and the summary printed from its Tally is the same text. 100 logs (300
// at the full size, internal/testsize).
func TestImportStreamSameAsBefore(t *testing.T) {
	var specs []external.Spec
	for _, s := range []string{`t=took (\d+) ns:ns:lower`, `pages=(\d+) pages`, `x=x=(\S+)`, `pages=p(\d+)`} {
		sp, err := external.ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	pieces := []string{"took 12 ns", "took 7 ns", "took 1000000 ns", "3 pages", "p4", "x=1.5", "x=bad", "noise", "", "took 1 ns 2 pages", "é <&>"}
	rng := rand.New(rand.NewPCG(61, 62))
	dir := t.TempDir()
	streamed := 0
	trials := testsize.Pick(100, 300)
	for trial := range trials {
		n := rng.IntN(60)
		if trial == 0 {
			n = 200000
		}
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString([]string{"\n", " ", "\n\n"}[rng.IntN(3)])
		}
		log := b.String()
		sp := specs[:1+rng.IntN(len(specs))]
		lo, hi := 0, 0
		if trial%3 == 1 {
			lo, hi = rng.IntN(4), rng.IntN(6)
			if hi > 0 && lo > hi {
				lo, hi = hi, lo
			}
		}
		skip := rng.IntN(3)
		recs, used, warns, err := external.Records(sp, log, lo, hi)
		if err != nil || len(recs) == 0 {
			continue
		}
		head := func() *results.File {
			f := run.ExternalFile("import", "import", used, used[0].Name, "a label")
			f.Start = f.Start.Truncate(1e9)
			f.Configs = []results.Config{{Params: []results.Param{{Name: "log", Value: "l.txt"}}}}
			f.Warnings, f.End, f.Complete = warns, f.Start, true
			return f
		}
		before := head()
		before.Reps = importRepsBefore(recs, skip)
		pb := filepath.Join(dir, fmt.Sprintf("before-%d.json", trial))
		w, err := results.Create(pb, before)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		var sumBefore bytes.Buffer
		summary.Summary(&sumBefore, before, 0)

		scan, _, _, err := external.Scan(sp, log, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		now := head()
		now.Start, now.End, now.Env = before.Start, before.End, before.Env
		tally := results.NewTally(0)
		pn := filepath.Join(dir, fmt.Sprintf("now-%d.json", trial))
		w, err = results.OpenFrom(pn, now, results.ModeNew, reps(scan, skip, tally))
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		var sumNow bytes.Buffer
		summary.SummaryOf(&sumNow, now, tally)

		x, _ := os.ReadFile(pb)
		y, _ := os.ReadFile(pn)
		if !bytes.Equal(x, y) {
			t.Fatalf("trial %d (%d records): the streamed file differs:\n now    %q\n before %q", trial, len(recs), y, x)
		}
		if sumNow.String() != sumBefore.String() {
			t.Fatalf("trial %d: the summary differs:\n now\n%s\n before\n%s", trial, sumNow.String(), sumBefore.String())
		}
		if len(now.Reps) != 0 {
			t.Fatalf("trial %d: the streamed File holds %d repetitions", trial, len(now.Reps))
		}
		os.Remove(pb)
		os.Remove(pn)
		streamed++
	}
	if streamed < trials/2 {
		t.Errorf("only %d logs of %d compared", streamed, trials)
	}
}

// TestImportReadError: a log that cannot be read (here stdin a
// directory) is an error naming it, not an empty log ("no match of ...").
func TestImportReadError(t *testing.T) {
	fh, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if log, _, err := readAll(fh, fh.Name(), 0); err == nil || !strings.Contains(err.Error(), "cannot read the log") {
		t.Errorf("a directory read as the log: %q, %v", log, err)
	}
}

// TestRead: the lines kept (--from, --to), the quoting removed, the
// records selected, each repetition's line counted from the log's first
// line, and the configuration's environment naming the log, its SHA-256,
// the lines and the records read.
func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mail.txt")
	log := "header\r\n> took 5 ns\n> took 6 ns\nnoise\n> took 7 ns\n> took 8 ns\ntook 9 ns\n"
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	spec, err := external.ParseSpec(`t=took (\d+) ns:ns:lower`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Read(path, os.Stdin, []external.Spec{spec}, Options{From: 2, To: 6, Select: "2..3", Selected: true, Unquote: true})
	if err != nil {
		t.Fatal(err)
	}
	tally := results.NewTally(0)
	var got []string
	for _, r := range l.AllReps(tally) {
		v := r.Metrics.Get("t")
		got = append(got, fmt.Sprintf("%d %v %s", r.Index, v, strings.SplitN(r.Output, "\n", 2)[0]))
	}
	if want := []string{"0 6 [line 3]", "1 7 [line 5]"}; strings.Join(got, "; ") != strings.Join(want, "; ") || tally.Counts[results.StatusOK] != 2 {
		t.Errorf("records %q, want %q (ok %d)", got, want, tally.Counts[results.StatusOK])
	}
	env := l.Config().Env
	if env["log.path"] != path || env["log.lines"] != "2..6" || env["log.select"] != "2..3" || len(env["log.sha256"]) != 64 {
		t.Errorf("config env %v", env)
	}
	if lineRange(0, 60) != "..60" || lineRange(52, 0) != "52.." {
		t.Errorf("lineRange: %q %q", lineRange(0, 60), lineRange(52, 0))
	}
	for _, c := range []struct {
		path string
		opt  Options
		want string
	}{
		{path, Options{Select: "", Selected: true}, `--select "": accepted`},
		{path, Options{From: 9}, "--from 9: the log has only 7 lines"},
		{filepath.Join(t.TempDir(), "none"), Options{}, "none: no such file"},
		{t.TempDir(), Options{}, "is a directory, not a log"},
		{path, Options{To: 1}, "import: no match of t (/took (\\d+) ns/) in " + path},
	} {
		if _, err := Read(c.path, os.Stdin, []external.Spec{spec}, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%s, %+v): %v, want %q", c.path, c.opt, err, c.want)
		}
	}
}
