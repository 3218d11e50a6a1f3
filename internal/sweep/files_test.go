package sweep

import (
	"bytes"
	"strings"
	"testing"

	"contend/analysis"
	"contend/internal/results"
)

// TestCompareFiles: each file after the first against the first, with
// a blank line between; the refusals of the command line.
func TestCompareFiles(t *testing.T) {
	threads := []int{1, 2, 4}
	a := synthetic("before", threads, 1e6, 0.05, 0.002, 6, 3)
	b := synthetic("after", threads, 1.3e6, 0.10, 0.002, 6, 4)
	c := synthetic("later", threads, 1.1e6, 0.05, 0.002, 6, 5)
	opt := analysis.CompareOptions{Alpha: 0.05}
	var buf bytes.Buffer
	if err := CompareFiles(&buf, []*results.File{a, b, c}, []string{"a.json", "b.json", "c.json"}, "text", nil, opt); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "faultme curve, B against A"); n != 2 || !strings.Contains(buf.String(), "\n\nfaultme curve") {
		t.Errorf("%d comparisons:\n%s", n, buf.String())
	}
	run := &results.File{Kind: "run"}
	imp := &results.File{Kind: "import"}
	for _, x := range []struct {
		files   []*results.File
		format  string
		metrics []string
		want    string
	}{
		{[]*results.File{a, b}, "json", nil, "--format json: sweep files are compared as text; use 'contend show --format csv' for their tables"},
		{[]*results.File{a, run}, "text", nil, "b.json is not a sweep (it is a run file) but a.json is: a sweep is compared only with another sweep, or compare one point as a.json:NAME"},
		{[]*results.File{imp, a}, "text", nil, "a.json is not a sweep (it is an import file) but b.json is: a sweep is compared only with another sweep, or compare one point as b.json:NAME"},
		{[]*results.File{a}, "text", nil, "compare needs at least two sweep files"},
		{[]*results.File{a, b}, "text", []string{"time", "pages"}, "--metric: give one metric for a curve comparison"},
	} {
		err := CompareFiles(&bytes.Buffer{}, x.files, []string{"a.json", "b.json"}, x.format, x.metrics, opt)
		if err == nil || err.Error() != x.want {
			t.Errorf("%v, want %q", err, x.want)
		}
	}
}
