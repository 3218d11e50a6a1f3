package external

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in, name, re, unit, better, err string
	}{
		{in: `time=time = (\d+) usecs:us:lower`, name: "time", re: `time = (\d+) usecs`, unit: "us", better: "lower"},
		{in: `c=contended:(\d+)`, name: "c", re: `contended:(\d+)`, unit: "count"},
		{in: `ops=ops/sec (\d+):ops/s:higher`, name: "ops", re: `ops/sec (\d+)`, unit: "ops/s", better: "higher"},
		{in: `t=x(\d+):s`, name: "t", re: `x(\d+)`, unit: "s"},
		{in: `t=key\:(\d+)\:word`, name: "t", re: `key\:(\d+)\:word`, unit: "count"},
		{in: `t=(\d+):furlongs`, err: `unknown unit "furlongs"`},
		{in: `t=(\d+):lower`, err: "needs a unit"},
		{in: `t=\d+`, err: "no capture group"},
		{in: `t=(\d+`, err: "bad regex"},
		{in: `Time=(\d+)`, err: "metric name"},
		{in: `(\d+)`, err: "not NAME=REGEX"},
		{in: `x=`, err: "not NAME=REGEX"},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s.Name != c.name || s.Regex.String() != c.re || s.Unit != c.unit || string(s.Better) != c.better {
			t.Errorf("%q: got %s /%s/ %s %q", c.in, s.Name, s.Regex, s.Unit, s.Better)
		}
	}
}

func mustSpec(t *testing.T, text string) Spec {
	t.Helper()
	s, err := ParseSpec(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExtract(t *testing.T) {
	us := mustSpec(t, `time=time = (\d+) usecs:us`)
	m, err := Extract([]Spec{us}, "map=1\ntime = 1234 usecs\n")
	if err != nil || m["time"] != 1234000 {
		t.Errorf("one match: %v %v", m, err)
	}
	_, err = Extract([]Spec{us}, "map=1\n")
	if err == nil || !strings.Contains(err.Error(), "metric time: no match of /time = (\\d+) usecs/") {
		t.Errorf("missing: %v", err)
	}
	_, err = Extract([]Spec{us}, "time = 1 usecs\ntime = 2 usecs\n")
	if err == nil || !strings.Contains(err.Error(), "2 matches") {
		t.Errorf("repeated: %v", err)
	}
	two := []Spec{us, mustSpec(t, `c=contended:(\d+)`)}
	m, err = Extract(two, "contended:7\ntime = 5 usecs\n")
	if err != nil || m["time"] != 5000 || m["c"] != 7 {
		t.Errorf("several metrics: %v %v", m, err)
	}
	bad := mustSpec(t, `x=value (\S+)`)
	if _, err := Extract([]Spec{bad}, "value abc\n"); err == nil || !strings.Contains(err.Error(), `"abc" is not a number`) {
		t.Errorf("not a number: %v", err)
	}
	dur := mustSpec(t, `r=real\s+(\S+):s`)
	if m, err := Extract([]Spec{dur}, "real\t1m18.933s\n"); err != nil || m["r"] != 78.933e9 {
		t.Errorf("duration: %v %v", m, err)
	}
	// Finite as written, infinite in the base unit: an error of the
	// record, not an Inf that the result file refuses later.
	if m, err := Extract([]Spec{dur}, "real 1e300\n"); err == nil || !strings.Contains(err.Error(), `metric r: "1e300" is too large`) {
		t.Errorf("1e300 s in ns: %v %v", m, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestPresetsOnSamples reads the sample outputs in testdata, written in
// the originals' formats.
func TestPresetsOnSamples(t *testing.T) {
	cases := []struct {
		preset, file string
		want         map[string]float64
	}{
		{"faultme", "faultme.txt", map[string]float64{"time": 7460345e3}},
		{"semop-multi", "semop-multi.txt", map[string]float64{"ops": 33553800, "ops_per_sec": 1118460}},
		{"osim", "osim.txt", map[string]float64{"time": 0.498123e9, "per_loop_orig": 4981, "loops": 100000}},
		{"mutex", "mutex.txt", map[string]float64{"contended": 557791}},
		{"sysbench", "sysbench-0.4.txt", map[string]float64{"total_time": 0.5311e9, "events": 4, "events_avg": 1, "events_stddev": 0, "thread_time_avg": 0.5233e9, "thread_time_stddev": 0.01e9}},
		{"sysbench", "sysbench-1.0.txt", map[string]float64{"total_time": 0.2218e9, "events": 2, "events_avg": 1, "events_stddev": 0, "thread_time_avg": 0.2169e9, "thread_time_stddev": 0}},
		{"time", "time.txt", map[string]float64{"real": 24.132e9, "user": 17.149e9, "sys": 78.933e9}},
		{"time", "time-p.txt", map[string]float64{"real": 6.83e9, "user": 4.96e9, "sys": 2.03e9}},
	}
	for _, c := range cases {
		p, err := LookupPreset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Extract(p.Metrics, string(b))
		if err != nil {
			t.Errorf("%s on %s: %v", c.preset, c.file, err)
			continue
		}
		if len(m) != len(c.want) {
			t.Errorf("%s on %s: got %v, want %v", c.preset, c.file, m, c.want)
		}
		for k, v := range c.want {
			if !near(m[k], v) {
				t.Errorf("%s on %s: %s = %v, want %v", c.preset, c.file, k, m[k], v)
			}
		}
		// Twice the output is two matches of everything: an error.
		if _, err := Extract(p.Metrics, string(b)+string(b)); err == nil {
			t.Errorf("%s: doubled output accepted", c.preset)
		}
	}
	if _, err := LookupPreset("nosuch"); err == nil || !strings.Contains(err.Error(), "faultme") {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestRecords(t *testing.T) {
	p, _ := LookupPreset("time")
	log := "contended:1\n\nreal\t0m1.000s\nuser\t0m0.500s\nsys\t0m0.100s\n" +
		"contended:2\n\nreal\t0m2.000s\nuser\t0m0.700s\n" + // no sys: failed
		"real\t0m3.000s\nuser\t0m0.1s\nuser\t0m0.2s\nsys 0.3\n" // user twice: failed
	recs, used, _, err := Records(p.Metrics, log, 0, 0)
	if err != nil || len(recs) != 3 || len(used) != 3 {
		t.Fatalf("got %d records, %d metrics, %v", len(recs), len(used), err)
	}
	if recs[0].Err != "" || recs[0].Metrics.Get("sys") != 0.1e9 || recs[0].Line != 3 {
		t.Errorf("record 1: %+v", recs[0])
	}
	if !strings.Contains(recs[1].Err, "metric sys: no match") {
		t.Errorf("record 2: %q", recs[1].Err)
	}
	if !strings.Contains(recs[2].Err, "user matched 2 times") {
		t.Errorf("record 3: %q", recs[2].Err)
	}
	// Selecting records 1..1 keeps the complete one.
	recs, _, _, _ = Records(p.Metrics, log, 1, 1)
	if len(recs) != 1 || recs[0].Err != "" || !strings.HasPrefix(recs[0].Text, "real\t0m1.000s") {
		t.Errorf("select 1..1: %+v", recs)
	}
	// A log cut with grep: only real lines; user and sys are left out.
	recs, used, warns, _ := Records(p.Metrics, "real 1.5\nreal 2.5\n", 0, 0)
	if len(recs) != 2 || len(used) != 1 || len(warns) != 2 || recs[1].Metrics.Get("real") != 2.5e9 {
		t.Errorf("grep log: %+v %v %v", recs, used, warns)
	}
}

func TestUnquoteCutSelect(t *testing.T) {
	if got := Unquote(" > real    0m46.765s<  x>\n> > a\nb > c\n"); got != "real    0m46.765s<  x>\na\nb > c\n" {
		t.Errorf("Unquote: %q", got)
	}
	got, err := CutLines("1\n2\n3\n4\n", 2, 3)
	if err != nil || got != "2\n3\n" {
		t.Errorf("CutLines: %q %v", got, err)
	}
	if _, err := CutLines("1\n", 5, 0); err == nil {
		t.Error("CutLines past the end accepted")
	}
	// A final newline ends line 2, it starts no line 3.
	if _, err := CutLines("1\n2\n", 3, 0); err == nil || !strings.Contains(err.Error(), "only 2 lines") {
		t.Errorf("CutLines from the line after the final newline: %v", err)
	}
	if _, err := CutLines("1\n", 3, 0); err == nil || !strings.Contains(err.Error(), "the log has only 1 line") || strings.Contains(err.Error(), "1 lines") {
		t.Errorf("CutLines past the end of a 1-line log: %v", err)
	}
	if got, err := CutLines("1\n2", 2, 0); got != "2" || err != nil {
		t.Errorf("CutLines of a last line without newline: %q %v", got, err)
	}
	if _, err := CutLines("1\n2\n", 5, 2); err == nil || !strings.Contains(err.Error(), "after --to") {
		t.Errorf("CutLines 5..2: %v, want --from after --to", err)
	}
	for in, want := range map[string][2]int{"1..5": {1, 5}, "6..": {6, 0}, "..4": {0, 4}, "3": {3, 3}} {
		lo, hi, err := ParseSelect(in)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("ParseSelect(%q) = %d %d %v", in, lo, hi, err)
		}
	}
	for _, in := range []string{"", "..", "0..2", "5..2", "a..b", "1-3"} {
		if _, _, err := ParseSelect(in); err == nil {
			t.Errorf("ParseSelect(%q) accepted", in)
		}
	}
}

func TestCaptureBounds(t *testing.T) {
	var c capture
	chunk := strings.Repeat("x", 1<<20)
	c.Write([]byte("HEAD\n"))
	for i := 0; i < 12; i++ {
		c.Write([]byte(chunk))
	}
	c.Write([]byte("\ntime = 5 usecs\n"))
	s := c.String()
	if !strings.HasPrefix(s, "HEAD\n") || !strings.HasSuffix(s, "time = 5 usecs\n") || len(s) > 2*CaptureHalf+100 || c.dropped == 0 {
		t.Errorf("capture: len %d dropped %d", len(s), c.dropped)
	}
	k := keep(s)
	if len(k) > 2*KeepHalf+100 || !strings.Contains(k, "not kept in the result file") {
		t.Errorf("keep: len %d", len(k))
	}
}
