package comparison

import (
	"strings"
	"testing"

	"contend/analysis"
)

const seeds = "../../cmd/contend/testdata/seeds/"

// TestOpenPart: FILE:CONFIG by name or index, a file of one
// configuration without a selector, and the errors of the rest.
func TestOpenPart(t *testing.T) {
	for _, c := range []struct {
		spec    string
		configs []int
		err     string
	}{
		{seeds + "mitake-ab.json:b", []int{1}, ""},
		{seeds + "mitake-ab.json:0", []int{0}, ""},
		{seeds + "rostedt-with.json", []int{0}, ""},
		{seeds + "mitake-ab.json", nil, "has 2 configurations (a, b): select one as " + seeds + "mitake-ab.json:a"},
		{seeds + "mitake-ab.json:z", nil, `no configuration "z"; it has a, b (or an index from 0 to 1)`},
		{seeds + "mitake-ab.json:2", nil, `no configuration "2"`},
		{"  ", nil, "an empty file name"},
		{seeds + "none.json", nil, "none.json"},
	} {
		p, sweep, err := OpenPart(c.spec)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.spec, err, c.err)
			}
		case err != nil || sweep || len(p.Configs) != len(c.configs) || p.Configs[0] != c.configs[0] || p.Name != c.spec:
			t.Errorf("%s: %+v sweep %v err %v, want configs %v", c.spec, p.Configs, sweep, err, c.configs)
		}
	}
}

// TestSidesAndSameRuns: a side's name joins its parts'; the same runs
// given twice are said once, different configurations of one file not.
func TestSidesAndSameRuns(t *testing.T) {
	sides, sweeps, err := Sides([][]string{{seeds + "mitake-ab.json:a", seeds + "xiao-ab.json:a"}, {seeds + "mitake-ab.json:b"}})
	if err != nil || len(sides) != 2 || len(sweeps) != 0 {
		t.Fatalf("sides %d sweeps %d err %v", len(sides), len(sweeps), err)
	}
	if want := seeds + "mitake-ab.json:a + " + seeds + "xiao-ab.json:a"; sides[0].Name != want || len(sides[0].Parts) != 2 {
		t.Errorf("side A named %q, want %q", sides[0].Name, want)
	}
	if w := SameRuns(sides); len(w) != 0 {
		t.Errorf("different runs said the same: %q", w)
	}
	twice, _, err := Sides([][]string{{seeds + "rostedt-with.json"}, {seeds + "rostedt-with.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := SameRuns(twice); len(w) != 1 || !strings.Contains(w[0], "are the same runs: this compares a file with itself") {
		t.Errorf("a file twice: %q", w)
	}
	if _, _, err := Sides([][]string{{seeds + "mitake-ab.json"}}); err == nil {
		t.Error("a file of two configurations without a selector was accepted")
	}
}

func TestParseTest(t *testing.T) {
	for word, want := range map[string]analysis.Test{"": analysis.TestMannWhitney, "mannwhitney": analysis.TestMannWhitney, "welch": analysis.TestWelch} {
		if got, err := ParseTest(word); err != nil || got != want {
			t.Errorf("ParseTest(%q) = %v, %v", word, got, err)
		}
	}
	for _, w := range Tests {
		if _, err := ParseTest(w); err != nil {
			t.Errorf("a word of Tests refused: %v", err)
		}
	}
	if _, err := ParseTest("t-test"); err == nil || !strings.Contains(err.Error(), "accepted: mannwhitney, welch") {
		t.Errorf("ParseTest(t-test): %v", err)
	}
}

// TestSpecs: compare's sides from --a/--b, from the arguments (one side
// each), or a campaign's directory; the refusals name what is wrong.
func TestSpecs(t *testing.T) {
	dir := t.TempDir()
	if s, d, err := Specs([]string{"a1", "a2"}, []string{"b1"}, nil); err != nil || d != "" || len(s) != 2 || len(s[0]) != 2 || s[1][0] != "b1" {
		t.Errorf("--a/--b: %v %q %v", s, d, err)
	}
	if s, d, err := Specs(nil, nil, []string{"x", "y", "z"}); err != nil || d != "" || len(s) != 3 || s[2][0] != "z" {
		t.Errorf("arguments: %v %q %v", s, d, err)
	}
	if s, d, err := Specs(nil, nil, []string{dir}); err != nil || d != dir || s != nil {
		t.Errorf("a directory: %v %q %v", s, d, err)
	}
	for _, c := range []struct {
		a, b, args []string
		want       string
	}{
		{[]string{"a"}, nil, nil, "--a and --b go together"},
		{nil, []string{"b"}, nil, "--a and --b go together"},
		{[]string{"a"}, []string{"b"}, []string{"x"}, "not both (extra: x)"},
		{nil, nil, []string{"x"}, "compare needs a baseline and at least one other result file, got 1"},
		{nil, nil, nil, "got 0"},
	} {
		if _, _, err := Specs(c.a, c.b, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v %v: %v, want %q", c.a, c.b, c.args, err, c.want)
		}
	}
}

// TestSidesReadTogetherInOrder: the files, read two at a time, keep the
// order of their specs in each side, and the error is the first spec's
// that has one, whichever file was read first.
func TestSidesReadTogetherInOrder(t *testing.T) {
	specs := [][]string{{seeds + "mitake-ab.json:a", seeds + "xiao-ab.json:a", seeds + "rostedt-with.json"}, {seeds + "mitake-ab.json:b", seeds + "xiao-ab.json:b"}}
	sides, _, err := Sides(specs)
	if err != nil || len(sides) != 2 {
		t.Fatalf("%d sides, err %v", len(sides), err)
	}
	for si, files := range specs {
		if len(sides[si].Parts) != len(files) {
			t.Fatalf("side %d: %d parts, want %d", si, len(sides[si].Parts), len(files))
		}
		for pi, spec := range files {
			if p := sides[si].Parts[pi]; p.Name != spec || p.File == nil {
				t.Errorf("side %d part %d: %q, want %q read", si, pi, p.Name, spec)
			}
		}
	}
	_, _, err = Sides([][]string{{seeds + "rostedt-with.json"}, {seeds + "none1.json", seeds + "mitake-ab.json:b"}, {seeds + "none2.json"}})
	if err == nil || !strings.Contains(err.Error(), "none1.json") || strings.Contains(err.Error(), "none2.json") {
		t.Errorf("error %v, want the first missing file's (none1.json)", err)
	}
}
