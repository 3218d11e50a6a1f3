package mmtestsimport

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A parser reads the logs of one iteration of a benchmark (the directory
// iter-N/BENCH/logs) into lines of mmtests' shellpack format: metric,
// factor A, factor B, interval, value, extra, tab-separated.
type parser func(logs string) ([]string, error)

// Parsers are the benchmarks whose logs are read without mmtests, by
// their name's first word (hackbench-process-pipes is hackbench); with
// LogOptions.Mmtests set, every benchmark with a shellpack parse-results
// is read by mmtests' own script instead.
var Parsers = map[string]struct {
	parse     parser
	higher    bool
	precision int
}{
	"hackbench": {parseHackbench, false, 4},
}

// LogOptions configure ReadLogTree.
type LogOptions struct {
	// Benchmark is the benchmark to read (a directory under iter-N/);
	// empty when each run has one.
	Benchmark string
	// Mmtests is an mmtests checkout whose
	// shellpack_src/src/BENCH/parse-results reads the logs; empty for the
	// built-in Parsers.
	Mmtests string
}

// ReadLogTree reads the runs of dir: an mmtests work/log directory (each
// NAME/ with iter-N/ inside) or one run's directory (work/log/NAME).
func ReadLogTree(dir string, opt LogOptions) ([]Run, error) {
	if iters, _ := filepath.Glob(filepath.Join(dir, "iter-*")); len(iters) > 0 {
		r, err := readRun(dir, opt)
		if err != nil {
			return nil, err
		}
		return []Run{r}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range ents {
		sub := filepath.Join(dir, e.Name())
		if iters, _ := filepath.Glob(filepath.Join(sub, "iter-*")); !e.IsDir() || len(iters) == 0 {
			continue
		}
		r, err := readRun(sub, opt)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no mmtests run in it (a work/log directory holds NAME/iter-N/BENCH/logs)", dir)
	}
	return runs, nil
}

var iterNum = regexp.MustCompile(`^iter-([0-9]+)$`)

// readRun reads the run of directory dir (its name is the run's).
func readRun(dir string, opt LogOptions) (Run, error) {
	iters, _ := filepath.Glob(filepath.Join(dir, "iter-*"))
	sort.Slice(iters, func(i, j int) bool { return iterIndex(iters[i]) < iterIndex(iters[j]) })
	bench := opt.Benchmark
	if bench == "" {
		ents, err := os.ReadDir(iters[0])
		if err != nil {
			return Run{}, err
		}
		var names []string
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		if len(names) != 1 {
			return Run{}, fmt.Errorf("%s: %d benchmarks (%s): name one (--benchmark)", iters[0], len(names), strings.Join(names, ", "))
		}
		bench = names[0]
	}
	parse, higher, prec, err := parserFor(bench, opt.Mmtests)
	if err != nil {
		return Run{}, err
	}
	r := Run{Name: filepath.Base(dir), Benchmark: bench, Higher: higher, Precision: prec, Values: map[string][][]float64{}}
	for i, it := range iters {
		logs := filepath.Join(it, bench, "logs")
		lines, err := parse(logs)
		if err != nil {
			return Run{}, fmt.Errorf("%s: %v", logs, err)
		}
		for _, l := range lines {
			f := strings.Split(strings.TrimRight(l, "\n"), "\t")
			if len(f) < 5 {
				continue
			}
			op := f[0]
			for _, x := range f[1:3] {
				if x != "" && x != "_" {
					op += "-" + x
				}
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(f[4]), 64)
			if err != nil {
				continue // mmtests drops what is not a number
			}
			if _, seen := r.Values[op]; !seen {
				r.Ops = append(r.Ops, op)
			}
			for len(r.Values[op]) <= i {
				r.Values[op] = append(r.Values[op], nil)
			}
			r.Values[op][i] = append(r.Values[op][i], v)
		}
	}
	if len(r.Ops) == 0 {
		return Run{}, fmt.Errorf("%s: no %s values in its logs", dir, bench)
	}
	return r, nil
}

func iterIndex(path string) int {
	m := iterNum.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// parserFor returns the parser of bench: mmtests' parse-results where an
// mmtests checkout is given, else a built-in one.
func parserFor(bench, mmtests string) (parser, bool, int, error) {
	if mmtests != "" {
		root := shellpackRoot(mmtests, bench)
		if root == "" {
			return nil, false, 0, fmt.Errorf("--mmtests %s: no shellpack for %s in shellpack_src/src", mmtests, bench)
		}
		higher, prec := shellpackConfig(filepath.Join(root, "shellpack.yaml"))
		script := filepath.Join(root, "parse-results")
		return func(logs string) ([]string, error) {
			out, err := exec.Command(script, logs).Output()
			if err != nil {
				return nil, fmt.Errorf("%s: %v", script, err)
			}
			return strings.Split(string(out), "\n"), nil
		}, higher, prec, nil
	}
	word, _, _ := strings.Cut(bench, "-")
	p, ok := Parsers[word]
	if !ok {
		var known []string
		for k := range Parsers {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, false, 0, fmt.Errorf("no parser for %s's logs without mmtests (built in: %s): give --mmtests DIR, an mmtests checkout", bench, strings.Join(known, ", "))
	}
	return p.parse, p.higher, p.precision, nil
}

// shellpackRoot is the shellpack directory of bench as mmtests looks it
// up: the name, then without its last -suffix, and so on.
func shellpackRoot(mmtests, bench string) string {
	for name := bench; ; {
		c := filepath.Join(mmtests, "shellpack_src", "src", name)
		if _, err := os.Stat(c); err == nil {
			return c
		}
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			return ""
		}
		name = name[:i]
	}
}

// shellpackConfig reads the top-level preferhigher and DecimalPlaces of
// a shellpack.yaml (2 places when it names none, as mmtests).
func shellpackConfig(path string) (higher bool, prec int) {
	prec = 2
	data, err := os.ReadFile(path)
	if err != nil {
		return false, prec
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		v = strings.ToLower(strings.TrimSpace(v))
		switch k {
		case "preferhigher":
			higher = v == "" || v == "1" || v == "higher" || v == "true"
		case "DecimalPlaces":
			if n, err := strconv.Atoi(v); err == nil {
				prec = n
			}
		}
	}
	return higher, prec
}

var hackbenchFile = regexp.MustCompile(`^hackbench-([0-9]+)(\.gz|\.xz)?$`)

// parseHackbench reads hackbench-N files ("Total time: T" a line) as
// mmtests' hackbench parse-results does: time, N, iteration, T.
func parseHackbench(logs string) ([]string, error) {
	ents, err := os.ReadDir(logs)
	if err != nil {
		return nil, err
	}
	type file struct {
		n    int
		name string
	}
	var files []file
	for _, e := range ents {
		if m := hackbenchFile.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			files = append(files, file{n, e.Name()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].n < files[j].n })
	var out []string
	for _, f := range files {
		data, err := readMaybeCompressed(filepath.Join(logs, f.name))
		if err != nil {
			return nil, err
		}
		it := 0
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.Contains(l, "Total time:") {
				continue
			}
			fs := strings.Fields(l)
			if len(fs) < 3 {
				continue
			}
			it++
			out = append(out, fmt.Sprintf("time\t%d\t_\t%d\t%s\t_", f.n, it, fs[2]))
		}
	}
	return out, nil
}
