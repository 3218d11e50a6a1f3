package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// checkFastRep fails t when the fast decoder accepts line and decodes it
// differently from encoding/json (or when encoding/json refuses it). It
// returns whether the fast decoder took the line.
func checkFastRep(t *testing.T, s *repScanner, line []byte) bool {
	t.Helper()
	var fast Rep
	if !s.decodeRep(line, &fast) {
		return false
	}
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("fast decoder took a line encoding/json refuses (%v): %q", err, line)
	}
	if r.Rep == nil || r.Append != nil || r.End != nil {
		t.Fatalf("fast decoder took a line that is not a repetition for encoding/json: %q", line)
	}
	if !reflect.DeepEqual(fast, *r.Rep) {
		t.Fatalf("fast decoder and encoding/json differ on %q:\n fast %#v\n json %#v", line, fast, *r.Rep)
	}
	return true
}

// randomRep returns a repetition with every field the writer can write,
// strings holding escapes, HTML characters and non-ASCII text.
func randomRep(rng *rand.Rand, i int) Rep {
	pieces := []string{"a", "took 12 ns", "\n", "\t", `"`, `\`, "<&>", "é", "日本", "\u2028", "\x01", "\x1f", "/", "\r", "💥", " "}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	values := []float64{0, 1, -1, 1e6 + float64(i), 0.1, 1e-300, 5e-324, math.MaxFloat64, -2.5e21, 123456789.125, 1e20, 1e21,
		1<<53 - 1, -(1 << 53), 1<<53 + 2, 1e15 + 1, 4503599627370497, 999999999999999, 1e16, -123456789}
	r := Rep{Index: i, Config: rng.IntN(3), Round: rng.IntN(5), Status: []string{StatusOK, StatusFailed, StatusTimeout, StatusInterrupted}[rng.IntN(4)],
		Start: time.Date(2026, 11, 30, 1, 2, 3, rng.IntN(1e9), time.UTC)}
	switch rng.IntN(6) {
	case 0, 1, 2:
		r.Start = r.Start.In(time.FixedZone("", 3600*rng.IntN(5)))
	case 3:
		r.Start = time.Time{} // an imported record: no start
	}
	r.Warmup = rng.IntN(4) == 0
	if rng.IntN(3) == 0 {
		r.Error = str()
	}
	if rng.IntN(5) > 0 {
		r.Metrics = ValuesOf(map[string]float64{})
		for range 1 + rng.IntN(3) {
			v := values[rng.IntN(len(values))]
			if rng.IntN(2) == 0 && math.Abs(v) < 1e300 {
				v *= 1 + rng.Float64()
			}
			r.Metrics.Set([]string{"time", "k.ctx", "x<y", "é"}[rng.IntN(4)], v)
		}
	}
	if rng.IntN(3) == 0 {
		for range 1 + rng.IntN(3) {
			r.Notes = append(r.Notes, str())
		}
	}
	if rng.IntN(2) == 0 {
		r.Output = str()
	}
	if rng.IntN(2) == 0 {
		r.LoadAvg = rng.Float64() * 10
	}
	if rng.IntN(2) == 0 {
		r.BootID = "6f1c0d2e-0000-4000-8000-000000000001"
	}
	return r
}

// TestFastRepMatchesJSON checks that the fast decoder reads every
// repetition the writer writes, and reads it as encoding/json does; and
// that lines cut or changed anywhere are either read the same or left to
// encoding/json.
func TestFastRepMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s repScanner
	for i := range 3000 {
		r := randomRep(rng, i)
		line, err := appendRecord(nil, record{Rep: &r})
		if err != nil {
			t.Fatal(err)
		}
		if !checkFastRep(t, &s, line) {
			t.Fatalf("fast decoder refused a line the writer wrote: %q", line)
		}
		// Cut, with a byte changed, with spaces: same result or refused.
		for range 5 {
			b := bytes.Clone(line)
			switch rng.IntN(4) {
			case 0:
				b = b[:rng.IntN(len(b))]
			case 1:
				b[rng.IntN(len(b))] = `{}[]":,.-+eE0 1\tnu"`[rng.IntN(20)]
			case 2:
				k := rng.IntN(len(b))
				b = append(b[:k:k], append([]byte(" "), line[k:]...)...)
			case 3:
				b = bytes.Replace(b, []byte(`"time"`), []byte(`"Time"`), 1)
			}
			if !utf8.Valid(b) {
				continue // Parse refuses the file
			}
			if !json.Valid(bytes.TrimSpace(b)) {
				var fast Rep
				if s.decodeRep(b, &fast) {
					t.Fatalf("fast decoder took invalid JSON %q", b)
				}
				continue
			}
			checkFastRep(t, &s, b)
		}
	}
	// Shapes the writer does not produce go to encoding/json.
	for _, l := range []string{
		`{"rep":{"config":0,"index":1,"status":"ok","start":"2026-01-01T00:00:00Z"}}`,
		`{"rep":{"index":1,"index":2,"status":"ok","start":"2026-01-01T00:00:00Z"}}`,
		`{"rep":{"index":1,"status":"ok","start":"2026-01-01T00:00:00Z","series":{"t":[1,2]}}}`,
		`{"rep":{"index":1.0,"status":"ok","start":"2026-01-01T00:00:00Z"}}`,
		`{"rep":{"index":1,"status":"\ud83d\udca5","start":"2026-01-01T00:00:00Z"}}`,
		`{"rep":{"index":1,"metrics":null}}`,
		`{"rep":{"index":1}} `,
		`{"append":{"first_rep":1}}`,
	} {
		var fast Rep
		if s.decodeRep([]byte(l), &fast) {
			t.Errorf("fast decoder took %s", l)
		}
	}
}

// TestParseFastSameAsJSON reads a whole file with the fast decoder and
// with encoding/json alone: the same File.
func TestParseFastSameAsJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := sampleFile()
	for i := range 5000 {
		r := randomRep(rng, i)
		for k := range r.Metrics {
			r.Metrics[k].X = 1
		}
		r.Config = 0
		f.Reps = append(f.Reps, r)
	}
	f.Metrics = append(f.Metrics, Metric{Name: "time"}, Metric{Name: "k.ctx"}, Metric{Name: "x<y"}, Metric{Name: "é"})
	b, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lines[1:] {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		if r.Rep != nil && !reflect.DeepEqual(*r.Rep, got.Reps[i]) {
			t.Fatalf("repetition %d: Parse %#v, encoding/json %#v", i, got.Reps[i], *r.Rep)
		}
	}
	if len(got.Reps) != len(f.Reps) {
		t.Fatalf("%d repetitions read, %d written", len(got.Reps), len(f.Reps))
	}
}

// TestFastEncodeMatchesJSON checks that the repetition encoder writes
// what encoding/json writes, byte for byte: random repetitions, strings
// with every kind of character, numbers of every size, series, a start
// time encoding/json refuses.
func TestFastEncodeMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var e repEncoder
	check := func(r Rep) {
		t.Helper()
		want, werr := json.Marshal(record{Rep: &r})
		got, gerr := e.appendRep([]byte("x"), &r)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || (werr == nil && string(got[1:]) != string(want)) {
			t.Fatalf("repetition %#v:\n fast %s (%v)\n json %s (%v)", r, got, gerr, want, werr)
		}
	}
	for i := range 5000 {
		r := randomRep(rng, i)
		if i%10 == 0 {
			r.Metrics = ValuesOf(map[string]float64{"a": math.Ldexp(rng.Float64(), rng.IntN(2100)-1075), "b": -1e-6, "c": 1e21, "d": 999999999999999999999, "e": math.Copysign(0, -1), "\xff": 1,
				"f": math.Trunc(math.Ldexp(rng.Float64(), rng.IntN(60))), "g": -math.Trunc(math.Ldexp(rng.Float64(), rng.IntN(60)))})
			r.Error = "bad \xff utf-8"
		}
		if i%17 == 0 {
			r.Series = map[string][]float64{"t": {1, 2.5}}
		}
		if i%4 == 0 {
			r.Start = r.Start.Add(time.Duration(rng.IntN(1e6)))
		}
		check(r)
	}
	check(Rep{Status: StatusOK, Start: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	check(Rep{Status: StatusOK, Notes: []string{}, Metrics: ValuesOf(map[string]float64{})})
}

// TestFastPathsKnowEveryField fails when Rep gains a field: the encoder
// would leave it out of new files and the decoder send every line with it
// to encoding/json. Add it to repEncoder.appendRep and
// repScanner.decodeRep (in Rep's order), to randomRep, and here.
func TestFastPathsKnowEveryField(t *testing.T) {
	known := []string{"index", "config", "warmup", "round", "status", "error", "start", "metrics", "series", "notes", "output", "loadavg", "boot_id"}
	typ := reflect.TypeFor[Rep]()
	var fields []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	if !reflect.DeepEqual(fields, known) {
		t.Fatalf("Rep's JSON fields are %q; the fast encoder and decoder know %q", fields, known)
	}
}
