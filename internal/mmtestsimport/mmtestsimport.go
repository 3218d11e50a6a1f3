// Package mmtestsimport reads mmtests' results: the files of
// compare-mmtests.pl --json-export (the comparison object, its extract
// modules each a run with its per-iteration values; also the array of
// modules --from-json reads), plain, xz- or zstd-compressed, and the
// work/log/NAME trees of run-mmtests.sh, whose per-iteration logs it
// parses for the benchmarks it knows (Parsers). Each run becomes a Run,
// and each Run a result file (File) that contend compare reads, so that
// a table people already have gets contend's statistics without a re-run.
package mmtestsimport

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"

	"strconv"

	"contend/internal/esc"
	"contend/internal/mmtests"
	"contend/internal/results"
)

// Run is one run of mmtests (a column of its table): its name, the
// benchmark, its operations in mmtests' order and each one's values by
// iteration.
type Run struct {
	Name      string
	Benchmark string
	// Higher: higher values are better (mmtests' _PreferredVal Higher).
	Higher bool
	// Precision is mmtests' DecimalPlaces of the run, -1 when unknown.
	Precision int
	// Ops are the operations in mmtests' order; Values[op][i] are the
	// values of iteration i.
	Ops    []string
	Values map[string][][]float64
}

// module is the part of an mmtests extract module that is read.
type module struct {
	ModuleName string                `json:"_ModuleName"`
	TestName   string                `json:"_TestName"`
	Preferred  string                `json:"_PreferredVal"`
	Precision  *json.Number          `json:"_Precision"`
	Operations []string              `json:"_Operations"`
	Generated  []string              `json:"_GeneratedOperations"`
	ResultData map[string][]iterData `json:"_ResultData"`
}

type iterData struct {
	Values []number `json:"Values"`
}

// number is a value of an export: a JSON number, or a string holding one
// (Perl's JSON writes the values it read from the logs as strings).
type number string

func (n *number) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		var x json.Number
		if err := json.Unmarshal(b, &x); err != nil {
			return err
		}
		s = string(x)
	}
	*n = number(strings.TrimSpace(s))
	return nil
}

// ReadJSON reads a file of compare-mmtests.pl --json-export (path ending
// in .json, .json.xz, .json.zst or .json.gz).
func ReadJSON(path string) ([]Run, error) {
	data, err := readMaybeCompressed(path)
	if err != nil {
		return nil, err
	}
	return ParseJSON(data, path)
}

// ParseJSON parses the JSON of an export (an object whose _ExtractModules
// are the runs) or of compare-mmtests.pl --from-json (an array of them).
func ParseJSON(data []byte, name string) ([]Run, error) {
	var mods []module
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &mods); err != nil {
			return nil, fmt.Errorf("%s: not an mmtests JSON export: %v", name, err)
		}
	} else {
		var top struct {
			Modules []module `json:"_ExtractModules"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%s: not an mmtests JSON export: %v", name, err)
		}
		mods = top.Modules
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s: no run in it (no _ExtractModules): is it compare-mmtests.pl --json-export's file?", name)
	}
	var runs []Run
	for i, m := range mods {
		r, err := m.run()
		if err != nil {
			return nil, fmt.Errorf("%s: run %d: %v", name, i+1, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func (m module) run() (Run, error) {
	if m.TestName == "" {
		return Run{}, fmt.Errorf("no _TestName")
	}
	if err := esc.Check("run name", m.TestName); err != nil {
		return Run{}, err
	}
	r := Run{Name: m.TestName, Benchmark: benchmarkOf(m.ModuleName), Higher: m.Preferred == "Higher", Precision: -1,
		Values: map[string][][]float64{}}
	if m.Precision != nil {
		if p, err := m.Precision.Int64(); err == nil && p >= 0 && p <= 12 {
			r.Precision = int(p)
		}
	}
	ops := m.Operations
	if len(ops) == 0 {
		ops = m.Generated
	}
	if len(ops) == 0 {
		for op := range m.ResultData {
			ops = append(ops, op)
		}
		sort.Strings(ops) // --from-json's order
	}
	for _, op := range ops {
		its, ok := m.ResultData[op]
		if !ok {
			continue
		}
		if err := esc.Check("operation", op); err != nil {
			return Run{}, err
		}
		var vals [][]float64
		for _, it := range its {
			var v []float64
			for _, x := range it.Values {
				f, err := strconv.ParseFloat(string(x), 64)
				if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
					return Run{}, fmt.Errorf("operation %s: value %q: %v", op, x, err)
				}
				v = append(v, f)
			}
			vals = append(vals, v)
		}
		r.Ops = append(r.Ops, op)
		r.Values[op] = vals
	}
	if len(r.Ops) == 0 {
		return Run{}, fmt.Errorf("%s has no values (_ResultData)", r.Name)
	}
	return r, nil
}

// benchmarkOf is the benchmark of an extract module's name:
// ExtractShellpackhackbench and ExtractHackbench are hackbench.
func benchmarkOf(module string) string {
	b := strings.TrimPrefix(module, "Extract")
	b = strings.TrimPrefix(b, "Shellpack")
	return strings.ToLower(b)
}

// readMaybeCompressed reads path, decompressed by its extension: gzip in
// Go, xz and zstd by their programs.
func readMaybeCompressed(path string) ([]byte, error) {
	var prog string
	switch {
	case strings.HasSuffix(path, ".xz"):
		prog = "xz"
	case strings.HasSuffix(path, ".zst"):
		prog = "zstd"
	case strings.HasSuffix(path, ".gz"):
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return io.ReadAll(io.LimitReader(z, maxJSON))
	default:
		return os.ReadFile(path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	bin, err := exec.LookPath(prog)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is needed to read it (install it, or decompress the file first)", path, prog)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "-dc", "--", path)
	cmd.Stdout, cmd.Stderr = &limitWriter{w: &out, n: maxJSON}, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %s -dc failed: %v %s", path, prog, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// maxJSON bounds what is read of an export (1 GiB).
const maxJSON = 1 << 30

type limitWriter struct {
	w io.Writer
	n int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, fmt.Errorf("more than %d bytes", maxJSON)
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}

// Fill makes f the result file of run r: a metric per operation (higher
// better where mmtests prefers higher values, else lower), one
// configuration named after the run, and a repetition per value: the
// k-th repetition holds the k-th value of each operation, iteration after
// iteration, as mmtests pools them.
func (r Run) Fill(f *results.File, unit string) {
	better := "lower"
	if r.Higher {
		better = "higher"
	}
	f.Metrics = nil
	for _, op := range r.Ops {
		f.Metrics = append(f.Metrics, results.Metric{Name: op, Unit: unit, Better: better,
			Desc: fmt.Sprintf("mmtests %s operation %s", r.Benchmark, op)})
	}
	if len(r.Ops) > 0 {
		f.Primary = r.Ops[0]
	}
	env := map[string]string{mmtests.NameEnv: r.Name, mmtests.BenchEnv: r.Benchmark}
	if r.Precision >= 0 {
		env[mmtests.PrecisionEnv] = strconv.Itoa(r.Precision)
	}
	f.Configs = []results.Config{{Name: r.Name, Params: []results.Param{{Name: "benchmark", Value: r.Benchmark}}, Env: env}}
	pooled := map[string][]float64{}
	n := 0
	for _, op := range r.Ops {
		for _, it := range r.Values[op] {
			pooled[op] = append(pooled[op], it...)
		}
		n = max(n, len(pooled[op]))
	}
	f.Reps = nil
	for k := range n {
		rep := results.Rep{Index: k, Status: results.StatusOK}
		for _, op := range r.Ops {
			if k < len(pooled[op]) {
				rep.Metrics.Set(op, pooled[op][k])
			}
		}
		f.Reps = append(f.Reps, rep)
	}
}
