package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"contend/internal/results"
)

// runOK runs contend and fails the test unless it exits 0.
func runOK(t *testing.T, args ...string) result {
	t.Helper()
	r := runCLI(t, args...)
	if r.code != 0 {
		t.Fatalf("contend %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// readOK reads a result file whose repetitions must all have succeeded.
func readOK(t *testing.T, path string, reps int) *results.File {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != reps {
		t.Fatalf("%d repetitions in the file, want %d", len(f.Reps), reps)
	}
	for _, rep := range f.Reps {
		if rep.Status != results.StatusOK {
			t.Fatalf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		}
	}
	return f
}

// stackHonouredOrReported checks that a repetition either ran on the
// requested stack or says it did not.
func stackHonouredOrReported(t *testing.T, rep results.Rep) {
	t.Helper()
	if rep.Metrics.Get("stack_honoured") == 1 {
		return
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "not honoured") {
			return
		}
	}
	t.Errorf("rep %d: stack not honoured and no note says so: %v", rep.Index, rep.Notes)
}

func TestRunMutexBothVariants(t *testing.T) {
	dir := chdirTemp(t)
	const pairs = 50 * 2000
	for _, variant := range []string{"trylock", "lock"} {
		t.Run(variant, func(t *testing.T) {
			out := filepath.Join(dir, variant+".json")
			r := runOK(t, "run", "mutex", "--threads", "50", "--locks", "2000", "--variant", variant, "-n", "2", "--out", out)
			if !strings.Contains(r.stdout, "mutex  threads=50 locks=2000 stack=32KiB variant="+variant) {
				t.Errorf("summary header:\n%s", r.stdout)
			}
			f := readOK(t, out, 2)
			if f.Primary != "real" {
				t.Errorf("primary %q, want real", f.Primary)
			}
			for _, rep := range f.Reps {
				m := rep.Metrics.Map()
				if m["counter"] != pairs {
					t.Errorf("counter %v, want %d", m["counter"], pairs)
				}
				c, has := m["contended"]
				switch {
				case variant == "trylock" && (!has || c > pairs || c < 0):
					t.Errorf("contended %v (present %v), want 0..%d", c, has, pairs)
				case variant == "lock" && has:
					t.Errorf("lock variant reports contended %v", c)
				}
				if variant == "trylock" && m["contended_frac"] != c/pairs {
					t.Errorf("contended_frac %v, want %v", m["contended_frac"], c/pairs)
				}
				if m["threads_time"] <= 0 || m["real"] < m["threads_time"] {
					t.Errorf("threads_time %v real %v: real covers the threads phase", m["threads_time"], m["real"])
				}
				for _, k := range []string{"user", "sys", "vcsw", "ivcsw"} {
					if _, ok := m[k]; !ok {
						t.Errorf("no %s", k)
					}
				}
				stackHonouredOrReported(t, rep)
			}
		})
	}
}

func TestRunMutexFormatOriginal(t *testing.T) {
	dir := chdirTemp(t)
	tm := `real\t\d+m\d+\.\d{3}s\nuser\t\d+m\d+\.\d{3}s\nsys\t\d+m\d+\.\d{3}s\n`
	for variant, re := range map[string]*regexp.Regexp{
		"trylock": regexp.MustCompile(`^(contended:\d+\n\n` + tm + `){2}$`),
		"lock":    regexp.MustCompile(`^(\n` + tm + `){2}$`),
	} {
		out := filepath.Join(dir, variant+".json")
		r := runOK(t, "run", "mutex", "--threads", "10", "--locks", "500", "--variant", variant, "-n", "2", "--format", "original", "--out", out)
		if !re.MatchString(r.stdout) {
			t.Errorf("%s: stdout is not the mails' lines:\n%q", variant, r.stdout)
		}
		s := runOK(t, "show", "--format", "original", out)
		if s.stdout != r.stdout {
			t.Errorf("%s: show --format original differs:\n%q\nvs\n%q", variant, s.stdout, r.stdout)
		}
	}
}

func TestRunSysbenchMutex(t *testing.T) {
	dir := chdirTemp(t)
	for _, rnd := range []string{"thread", "libc"} {
		out := filepath.Join(dir, rnd+".json")
		r := runOK(t, "run", "sysbench-mutex", "--threads", "4", "--mutex-num", "1", "--mutex-locks", "500",
			"--mutex-loops", "100", "--rand", rnd, "-n", "2", "--format", "original", "--out", out)
		f := readOK(t, out, 2)
		for _, rep := range f.Reps {
			m := rep.Metrics.Map()
			if m["global_var"] != 2000 || m["lost_updates"] != 0 || m["events"] != 4 {
				t.Errorf("%s: global_var %v lost %v events %v, want 2000 0 4", rnd, m["global_var"], m["lost_updates"], m["events"])
			}
			ts := rep.Series["thread_time"]
			if len(ts) != 4 {
				t.Fatalf("%s: %d per-thread times, want 4", rnd, len(ts))
			}
			for _, x := range ts {
				if x <= 0 || x > m["total_time"] {
					t.Errorf("%s: thread time %v outside (0, total %v]", rnd, x, m["total_time"])
				}
			}
			if !(m["thread_time_min"] <= m["thread_time_avg"] && m["thread_time_avg"] <= m["thread_time_max"]) {
				t.Errorf("%s: min %v avg %v max %v", rnd, m["thread_time_min"], m["thread_time_avg"], m["thread_time_max"])
			}
			stackHonouredOrReported(t, rep)
		}
		// sysbench 1.0.20's report layout, once per repetition.
		for _, re := range []string{
			`(?m)^General statistics:$`,
			`(?m)^    total time:                          \d+\.\d{4}s$`,
			`(?m)^    total number of events:              4$`,
			`(?m)^Latency \(ms\):$`,
			`(?m)^         min: +\d+\.\d{2}$`,
			`(?m)^         95th percentile: +\d+\.\d{2}$`,
			`(?m)^Threads fairness:$`,
			`(?m)^    events \(avg/stddev\):           1\.0000/0\.00$`,
			`(?m)^    execution time \(avg/stddev\):   \d+\.\d{4}/\d+\.\d{2}$`,
		} {
			if n := len(regexp.MustCompile(re).FindAllString(r.stdout, -1)); n != 2 {
				t.Errorf("%s: %d lines match %s, want 2:\n%s", rnd, n, re, r.stdout)
			}
		}
	}
}

func TestRunMutexBadInput(t *testing.T) {
	cases := []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"mutex", "--threads", "0"}, "--threads: 0 is out of range"},
		{"threads-max=100", []string{"mutex", "--threads", "200"}, "--threads: 200 threads or processes exceed kernel.threads-max = 100"},
		{"nproc=150", []string{"mutex", "--threads", "100"}, "RLIMIT_NPROC"},
		{"pids-max=90", []string{"mutex", "--threads", "50"}, "pids cgroup limit"},
		{"nproc=500,user-tasks=400", []string{"mutex", "--threads", "100"}, "--threads: 100 threads or processes exceed RLIMIT_NPROC (ulimit -u) = 500 (400 tasks counted against it now, 64 kept for contend); accepted: at most 36 here, or raise it: ulimit -u 564"},
		{"threads-max=5000,tasks-now=4500", []string{"mutex", "--threads", "1000"}, "or raise it: sysctl -w kernel.threads-max=5564"},
		{"max-map-count=2000", []string{"mutex", "--threads", "1000"}, "--threads: 1000 threads need 3024 mappings (a stack and its guard page each, 1024 for the process), more than vm.max_map_count = 2000; accepted: at most 488 here, or raise it: sysctl -w vm.max_map_count=3024"},
		{"memavailable=16777216", []string{"mutex", "--threads", "1000"}, "--threads: 1000 threads need at least 31.25MiB of memory"},
		{"max-map-count=2000", []string{"sysbench-mutex", "--threads", "1000"}, "more than vm.max_map_count = 2000"},
		{"", []string{"mutex", "--locks", "0"}, "--locks: 0 is out of range"},
		{"", []string{"mutex", "--locks", "-5"}, "--locks: -5 is out of range"},
		{"", []string{"mutex", "--threads", "1000", "--locks", "3000000"}, "--locks: 1000 threads x 3000000 locks"},
		{"", []string{"mutex", "--stack", "8KiB"}, "--stack: 8KiB is out of range"},
		{"", []string{"mutex", "--stack", "0"}, "--stack: 0 is out of range"},
		{"", []string{"mutex", "--stack", "2GiB"}, "--stack: 2GiB is out of range"},
		{"stack-min=65536", []string{"mutex", "--stack", "32KiB"}, "--stack: 32KiB is below PTHREAD_STACK_MIN (64KiB)"},
		{"as=1073741824", []string{"mutex", "--threads", "100", "--stack", "16MiB"}, "--stack: 100 stacks of 16MiB exceed the address-space limit"},
		{"", []string{"mutex", "--variant", "spin"}, `--variant: "spin" is not a choice`},
		{"", []string{"sysbench-mutex", "--threads", "0"}, "--threads: 0 is out of range"},
		{"threads-max=100", []string{"sysbench-mutex", "--threads", "64"}, "kernel.threads-max"},
		{"", []string{"sysbench-mutex", "--mutex-num", "0"}, "--mutex-num: 0 is out of range"},
		{"", []string{"sysbench-mutex", "--mutex-locks", "0"}, "--mutex-locks: 0 is out of range"},
		{"", []string{"sysbench-mutex", "--mutex-loops", "-1"}, "--mutex-loops: -1 is out of range"},
		{"", []string{"sysbench-mutex", "--mutex-loops", "x"}, `--mutex-loops: "x" is not an integer`},
		{"", []string{"sysbench-mutex", "--rand", "dev"}, `--rand: "dev" is not a choice`},
		{"", []string{"sysbench-mutex", "--thread-stack-size", "4KiB"}, "--thread-stack-size: 4KiB is out of range"},
		{"", []string{"sysbench-mutex", "--thread-stack-size", "1TiB"}, "--thread-stack-size: 1TiB is out of range"},
		{"memavailable=1048576", []string{"sysbench-mutex", "--mutex-num", "100000"}, "--mutex-num: 100000 padded mutexes need"},
	}
	for _, c := range cases {
		t.Run(c.env+" "+strings.Join(c.args, " "), func(t *testing.T) {
			dir := chdirTemp(t)
			if c.env != "" {
				t.Setenv("CONTEND_FAKE_LIMITS", c.env)
			}
			assertUsageError(t, runCLI(t, append([]string{"run"}, c.args...)...), c.want, dir, nil)
		})
	}
}

// TestRunMutexCreateFailure makes pthread_create fail halfway for real: an
// address-space limit leaves room for one or two of three 1 GiB stacks.
// The repetition must fail naming the call, the errno and how many
// threads were created, and must not hang on the gate.
func TestRunMutexCreateFailure(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	dir := chdirTemp(t)
	out := filepath.Join(dir, "fail.json")
	cmd := contendCmd(t, "run", "mutex", "--threads", "3", "--locks", "10", "--stack", "1GiB", "-n", "1", "--out", out)
	cmd.Args = append([]string{prlimit, "--as=3221225472", "--"}, cmd.Args...)
	cmd.Path = prlimit
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v:\n%s", err, b)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 1 || f.Reps[0].Status != results.StatusFailed {
		t.Fatalf("want one failed repetition, got %+v", f.Reps)
	}
	msg := f.Reps[0].Error
	if !regexp.MustCompile(`pthread_create .*\([12] created, gate released and joined.*EAGAIN`).MatchString(msg) {
		t.Errorf("error %q does not name the call, the count created and the errno", msg)
	}
}
