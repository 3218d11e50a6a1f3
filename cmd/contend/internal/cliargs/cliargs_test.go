package cliargs

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

type words struct{ cli.StringSliceFlag }

func (*words) TakesWords() {}

// testApp is a small tree: run with the workloads w and v (--threads
// takes a value, -q not), compare with the words flags --a and --b and
// --metric, exec (a program's arguments), skip (parses nothing), and
// import (arguments of its own, and the subcommand mmtests).
func testApp() *cli.App {
	wflags := func() []cli.Flag {
		return []cli.Flag{&cli.IntFlag{Name: "threads", Aliases: []string{"t"}}, &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}}}
	}
	return &cli.App{Commands: []*cli.Command{
		{Name: "run", Subcommands: []*cli.Command{{Name: "w", Flags: wflags()}, {Name: "v", Flags: wflags()}}},
		{Name: "compare", Flags: []cli.Flag{&words{cli.StringSliceFlag{Name: "a"}}, &words{cli.StringSliceFlag{Name: "b"}}, &cli.StringFlag{Name: "metric"}}},
		{Name: "exec", Flags: []cli.Flag{&cli.IntFlag{Name: "runs", Aliases: []string{"n"}}}},
		{Name: "skip", SkipFlagParsing: true},
		{Name: "import", Flags: []cli.Flag{&cli.StringFlag{Name: "preset"}, &cli.StringFlag{Name: "out"}},
			Subcommands: []*cli.Command{{Name: "mmtests", Flags: []cli.Flag{&cli.StringFlag{Name: "unit"}}}}},
	}}
}

// TestReorder: flags go before the positional arguments, with -- between
// them; a workload after flags comes first; a flag's value stays with it;
// the words after a words flag are each a flag of their own; a program's
// arguments and a command that parses nothing are left alone.
func TestReorder(t *testing.T) {
	app := testApp()
	for _, c := range []struct{ in, want string }{
		{"contend run w 64 -1 --threads 4 8", "contend run w --threads 4 -- 64 -1 8"},
		{"contend run --threads 4 w 1", "contend run w --threads 4 -- 1"},
		{"contend run --threads w v", "contend run v --threads w"},
		{"contend run w -q x --threads=3", "contend run w -q --threads=3 -- x"},
		{"contend run w x -- --threads 4", "contend run w -- x --threads 4"},
		{"contend compare --a x.json y.json --b z.json --metric time", "contend compare --a x.json --a y.json --b z.json --metric time"},
		{"contend compare --a=x.json c.json --metric m d.json", "contend compare --a x.json --a c.json --metric m --a d.json"},
		{"contend compare x.json y.json", "contend compare -- x.json y.json"},
		{"contend exec -n 3 /bin/echo -n 4", "contend exec -n 3 /bin/echo -n 4"},
		{"contend skip --x y", "contend skip --x y"},
		{"contend nosuch --x y", "contend nosuch --x y"},
		{"contend run", "contend run"},
		{"contend import --preset p log --out x", "contend import --preset p --out x -- log"},
		{"contend import mmtests e.json --unit s", "contend import mmtests --unit s -- e.json"},
	} {
		if got := strings.Join(Reorder(app, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("Reorder(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestFlagWords(t *testing.T) {
	for w, want := range map[string]bool{"-n": true, "--threads": true, "-1": false, "-0.5": false, "-": false, "x": false, "-1e3": false, "-e": true} {
		if IsFlagWord(w) != want {
			t.Errorf("IsFlagWord(%q) = %v", w, !want)
		}
	}
	w := testApp().Command("run").Command("w")
	if f := FindFlag(w, "t"); f == nil || f.Names()[0] != "threads" || !TakesValue(f) {
		t.Errorf("FindFlag(t) = %v", f)
	}
	if f := FindFlag(w, "q"); f == nil || TakesValue(f) {
		t.Errorf("FindFlag(q) = %v, a bool takes no value", f)
	}
	if FindFlag(w, "h") != cli.HelpFlag || FindFlag(w, "nosuch") != nil || TakesValue(nil) {
		t.Errorf("FindFlag: help %v, nosuch %v", FindFlag(w, "h"), FindFlag(w, "nosuch"))
	}
	if got := WorkloadFirst(testApp().Command("run"), strings.Fields("contend run -h w")); !slices.Equal(got, strings.Fields("contend run -h w")) {
		t.Errorf("WorkloadFirst after -h: %q", got)
	}
}
