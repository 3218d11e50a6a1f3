package completion

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"contend/internal/evidence"
	"contend/internal/workload"
)

func init() {
	workload.Register(&workload.Workload{Name: "wtest", Primary: "x", Metrics: []workload.Metric{{Name: "x", Unit: "ns"}}})
}

// enum is an enum flag of the test tree: Spec.Enum knows its words.
type enum struct {
	cli.StringFlag
	words []string
}

func testApp() (*cli.App, Spec) {
	format := &enum{cli.StringFlag{Name: "format"}, []string{"text", "json"}}
	app := &cli.App{Commands: []*cli.Command{
		{Name: "run", Aliases: []string{"r"}, Subcommands: []*cli.Command{
			{Name: "wtest", Flags: []cli.Flag{&cli.StringFlag{Name: "out", Aliases: []string{"o"}}, &cli.StringFlag{Name: "evidence"}, format, &cli.BoolFlag{Name: "secret", Hidden: true}}},
			{Name: "hidden", Hidden: true},
		}},
		{Name: "ab", Subcommands: []*cli.Command{
			{Name: "wtest", Flags: []cli.Flag{&cli.StringFlag{Name: "a"}, &cli.StringFlag{Name: "b"}}},
			{Name: "exec", Flags: []cli.Flag{&cli.StringFlag{Name: "a"}, &cli.IntFlag{Name: "runs", Aliases: []string{"n"}}}},
		}},
		{Name: "compare", Flags: []cli.Flag{&cli.StringSliceFlag{Name: "a"}, &cli.StringFlag{Name: "label"}}},
		{Name: "help"}, {Name: "completion"}, {Name: "__complete", Hidden: true},
	}}
	return app, Spec{
		Help: []string{"run", "wtest", "topic"}, Shells: Shells,
		Enum: func(f cli.Flag) []string {
			if e, ok := f.(*enum); ok {
				return e.words
			}
			return nil
		},
		FileFlags: map[string]bool{"out": true}, EvidenceFlags: map[string]bool{"evidence": true},
		FileArgs: map[string]bool{"compare": true},
	}
}

// TestWords: the candidates after each kind of word, as the shell
// scripts print them.
func TestWords(t *testing.T) {
	app, spec := testApp()
	all := append([]string{"default", "none"}, evidence.Collectors...)
	for _, c := range []struct {
		words string // the words after contend, | for the empty word being typed
		want  []string
	}{
		{"|", []string{"run", "ab", "compare", "help", "completion"}},
		{"--x |", []string{"run", "ab", "compare", "help", "completion"}},
		{"-", []string{"--help", "--version"}},
		{"nosuch |", nil},
		{"__complete |", nil},
		{"help |", []string{"run", "wtest", "topic"}},
		{"help run |", nil},
		{"completion |", []string{"bash", "zsh"}},
		{"completion bash |", nil},
		{"run |", []string{"wtest"}},
		{"r -", []string{"--help"}},
		{"run wtest -", []string{"--evidence", "--format", "--help", "--out", "-h", "-o"}},
		{"run wtest --o", []string{"--out"}},
		{"run --label x wtest --format |", []string{"text", "json"}},
		{"run wtest --out |", []string{FilesMarker}},
		{"run wtest -o |", []string{FilesMarker}},
		{"run wtest --evidence |", all},
		{"run wtest --format=json |", nil},
		{"run wtest x -- |", []string{FilesMarker}},
		{"ab wtest --a |", nil}, // a workload without parameters
		{"ab exec --a |", []string{FilesMarker}},
		{"ab exec -", []string{"--a", "--help", "--runs", "-a", "-h", "-n"}},
		{"ab exec -n |", nil},
		{"compare |", []string{FilesMarker}},
		{"compare --a |", []string{FilesMarker}},
		{"compare --label |", nil},
	} {
		words := strings.Fields(strings.ReplaceAll(c.words, "|", "@"))
		for i, w := range words {
			if w == "@" {
				words[i] = ""
			}
		}
		if got := Words(app, spec, words); !slices.Equal(got, c.want) {
			t.Errorf("contend %s<Tab>: %q, want %q", c.words, got, c.want)
		}
	}
	if got := Words(app, spec, nil); len(got) != 5 {
		t.Errorf("no words: %q", got)
	}
}

// TestEvidenceAndSideWords: an --evidence list offers the collectors not
// yet in it (nor one it excludes) after its last comma; ab's --a offers a workload's flags
// after what the quoted value already holds, without the quote.
func TestEvidenceAndSideWords(t *testing.T) {
	got := evidenceWords("sched,lock,")
	// Not sched, lock, or locktrace (which --evidence refuses beside
	// lock); default besides the collectors.
	if len(got) != len(evidence.Collectors)-2 || slices.Contains(got, "sched,lock,lock") || slices.Contains(got, "sched,lock,locktrace") || !slices.Contains(got, "sched,lock,default") || !slices.Contains(got, "sched,lock,perf") {
		t.Errorf("evidenceWords(sched,lock,) = %q", got)
	}
	w := &workload.Workload{Params: []workload.Param{{Name: "threads"}, {Name: "mem"}}}
	for cur, want := range map[string][]string{
		"":                     {"--threads", "--mem"},
		"'--threads 4 ":        {"--threads 4 --threads", "--threads 4 --mem"},
		`"--threads 4 --mem 1`: {"--threads 4 --mem --threads", "--threads 4 --mem --mem"},
	} {
		if got := sideWords(w, cur); !slices.Equal(got, want) {
			t.Errorf("sideWords(%q) = %q, want %q", cur, got, want)
		}
	}
}

func TestScript(t *testing.T) {
	for _, sh := range Shells {
		s, ok := Script(sh)
		if !ok || !strings.Contains(s, Arg) || !strings.Contains(s, FilesMarker) {
			t.Errorf("Script(%s): %v %q", sh, ok, s)
		}
	}
	if _, ok := Script("fish"); ok {
		t.Error("Script(fish) accepted")
	}
}
