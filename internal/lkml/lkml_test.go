package lkml

import (
	"flag"
	"math"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// robotRows are the figures of testdata/robot-block.txt, a block written
// from lkp-tests' lib/compare.rb (show_group_header, show_perf_header,
// show_perf_change): means, and relative standard deviations in percent.
var robotRows = []struct {
	a, asd, b, bsd float64
	stat           string
}{
	{21428413, 0.3, 365020, 2.6, "will-it-scale.per_thread_ops"},
	{2.057e9, 0.3, 35041920, 2.6, "will-it-scale.workload"},
	{0.05, 0.5, 0.92, 3.1, "will-it-scale.scalability"},
	{96.21, 0.1, 98.70, 0.2, "cpu-usage.sys%"},
	{4527, 14.2, 1234567, 1.0, "vmstat.system.cs"},
	{1.2e5, 1.0, 1.3e11, 5.5, "proc-vmstat.pgfault"},
	{12.80, 1.2, 0.21, 40.0, "perf-profile.calltrace.cycles-pp.futex_wait"},
}

func robotBlock() Block {
	b := Block{
		Axes: []Axis{{"testcase", "will-it-scale"}, {"compiler", "gcc-12"}, {"cpufreq_governor", "performance"},
			{"kconfig", "x86_64-rhel-8.3"}, {"mode", "thread"}, {"nr_task", "100%"},
			{"rootfs", "debian-12-x86_64-20240206.cgz"}, {"tbox_group", "lkp-icl-2sp9"}, {"test", "futex4"}},
		Base:  Side{ID: "3f1ba48bd0b0c5f0e0a5a1d2a3c7e1f2b4d6a8c0", Label: "futex: Pull futex_hash() out of futex_q_lock()", N: 10, Unit: "runs"},
		New:   Side{ID: "7c4f75a21f636486d2969d9b604a1b2c3d4e5f60", Label: "futex: Add basic infrastructure for local task local hash", N: 10, Unit: "runs"},
		All:   true,
		Test:  "Mann-Whitney U",
		Alpha: 0.05, Family: "Holm over 7 tests",
	}
	// The robot's deviations are lkp-tests' (divided by n): as sample
	// deviations (n-1) of 10 runs they are sqrt(10/9) larger.
	n1 := math.Sqrt(10.0 / 9)
	for i, r := range robotRows {
		b.Rows = append(b.Rows, Row{
			Stat:    r.stat,
			Base:    Stats{Mean: r.a, StdDev: r.asd / 100 * r.a * n1, N: 10},
			New:     Stats{Mean: r.b, StdDev: r.bsd / 100 * r.b * n1, N: 10},
			Percent: PercentStat(r.stat),
			Changed: i != 3,
			P:       1e-5, AdjustedP: 7e-5,
			HL: (r.b - r.a) / r.a, HLLo: (r.b - r.a) / r.a * 1.01, HLHi: (r.b - r.a) / r.a * 0.99, HasCI: i != 2,
		})
	}
	return b
}

// TestRobotColumns renders the figures of a robot block and compares the
// block, byte for byte, with the robot's layout: the rule, the axes line,
// the commit: lines, the id columns (16 and 27), the header and every row's
// columns.
func TestRobotColumns(t *testing.T) {
	want, err := os.ReadFile("testdata/robot-block.txt")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Write(&sb, robotBlock()); err != nil {
		t.Fatal(err)
	}
	got := sb.String()
	block, _, _ := strings.Cut(got, "\n\ncontend:")
	if block+"\n\n" != string(want)+"\n" && block+"\n" != string(want) {
		gl, wl := strings.Split(block, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got  %q\n want %q", i+1, g, w)
			}
		}
	}
	// The robot's columns: the base mean ends at column 10, the new one
	// at 38 (10 + 6 + 12 + 10), the stat starts at 47.
	for _, l := range strings.Split(block, "\n")[12:] {
		r := []rune(l)
		if len(r) < 47 || r[9] == ' ' || r[37] == ' ' || string(r[44:46]) != "  " || r[46] == ' ' {
			t.Errorf("row %q is off the robot's columns", l)
		}
	}
}

// TestGolden checks the whole output, the footer included, and that
// unchanged rows are left out without All.
func TestGolden(t *testing.T) {
	b := robotBlock()
	b.All = false
	var sb strings.Builder
	if err := Write(&sb, b); err != nil {
		t.Fatal(err)
	}
	if *update {
		os.WriteFile("testdata/golden.txt", []byte(sb.String()), 0o644)
	}
	want, err := os.ReadFile("testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	if sb.String() != string(want) {
		t.Errorf("output differs from testdata/golden.txt (go test -update rewrites it):\n%s", sb.String())
	}
	if strings.Contains(sb.String(), "cpu-usage.sys%") {
		t.Error("an unchanged row is shown without All")
	}
	if !strings.Contains(sb.String(), "1 row not changed at p < 0.05, not shown") {
		t.Error("the hidden row is not counted")
	}
}

// TestFormats checks the robot's number formats at their edges.
func TestFormats(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{999.994, "    999.99"}, {1000, "      1000"}, {1234.9, "      1234"}, {-1234.9, "     -1234"},
		{100_000_000, " 100000000"}, {100_000_001, "     1e+08"}, {123_456_789, " 1.235e+08"}, {0, "      0.00"},
	}
	for _, c := range cases {
		if got := mean(c.v); got != c.want {
			t.Errorf("mean(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := stddev(Stats{Mean: 100, StdDev: 2}); got != "      " {
		t.Errorf("stddev at 2%% = %q, want blank (shown only above 2%%)", got)
	}
	if got := stddev(Stats{Mean: 100, StdDev: 2.9}); got != " ±  2%" {
		t.Errorf("stddev at 2.9%% = %q, want ' ±  2%%' (truncated as Ruby's %%d)", got)
	}
	// lkp-tests' deviation divides by n: {0, 0, 0, 4} has mean 1, the
	// n-1 deviation 2 (200%), lkp's sqrt(3) (173%), printed without a
	// space after ± from 100% on; one run has none.
	xs := []float64{0, 0, 0, 4}
	var ss float64
	for _, x := range xs {
		ss += (x - 1) * (x - 1)
	}
	if got := stddev(Stats{Mean: 1, StdDev: math.Sqrt(ss / 3), N: 4}); got != " ±173%" {
		t.Errorf("stddev of {0,0,0,4} = %q, want lkp-tests' ' ±173%%' (n, not n-1)", got)
	}
	if got := stddev(Stats{Mean: 1, StdDev: math.Sqrt(ss / 3)}); got != " ±200%" {
		t.Errorf("stddev without n = %q, want the figure as given, ' ±200%%'", got)
	}
	if got := stddev(Stats{Mean: 1, StdDev: 0.5, N: 1}); got != "      " {
		t.Errorf("stddev of one run = %q, want blank", got)
	}
	r := FormatRow(Row{Stat: "x", Base: Stats{Mean: 10}, New: Stats{Mean: 10}})
	if !strings.Contains(r, "      +0.0% ") {
		t.Errorf("no change = %q", r)
	}
	r = FormatRow(Row{Stat: "x", Base: Stats{Mean: 0}, New: Stats{Mean: 1}})
	if !strings.Contains(r, "+1e+102%") {
		t.Errorf("a change from 0 = %q, want the robot's 1e-100 base", r)
	}
	if pval(math.NaN()) != "-" || pval(1e-6) != "<0.0001" || pval(0.01234) != "0.0123" {
		t.Error("pval")
	}
}

// TestProfileName: lkp-tests' perf-profile names of contend's profile
// shares; other metrics and unknown events are not profile names.
func TestProfileName(t *testing.T) {
	for _, c := range []struct{ metric, event, want string }{
		{"k.profile.self.clear_page_erms", "cycles", "perf-profile.self.cycles-pp.clear_page_erms"},
		{"k.profile.children.do_user_addr_fault", "cycles", "perf-profile.children.cycles-pp.do_user_addr_fault"},
		{"k.profile.self.native_queued_spin_lock_slowpath", "cpu-clock", "perf-profile.self.cpu-clock.native_queued_spin_lock_slowpath"},
		{"k.profile.self.try_to_wake_up.constprop.0", "cycles", "perf-profile.self.cycles-pp.try_to_wake_up"},
		{"k.profile.self.foo.part.12.isra.3", "cycles", "perf-profile.self.cycles-pp.foo"},
	} {
		if got, ok := ProfileName(c.metric, c.event); !ok || got != c.want {
			t.Errorf("ProfileName(%q, %q) = %q, %v; want %q", c.metric, c.event, got, ok, c.want)
		}
	}
	for _, c := range [][2]string{{"k.sys.cpu_steal", "cycles"}, {"k.profile.self.foo", ""}, {"k.profile.self.foo", "instructions"}} {
		if got, ok := ProfileName(c[0], c[1]); ok {
			t.Errorf("ProfileName(%q, %q) = %q, want none", c[0], c[1], got)
		}
	}
}
