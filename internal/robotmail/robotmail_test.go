package robotmail

import (
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestLinusMailSeveralMachines reads a report on a mainline commit in the
// robot's template: the folded subject, the commit, the parameters, the
// table of another test on a second machine, and two comparison blocks
// (one per test machine) with a fail:runs section before the %stddev one.
func TestLinusMailSeveralMachines(t *testing.T) {
	r := read(t, "linus-futex4.mail")
	if r.Subject != "[linus:master] [futex] 7c4f75a21f: will-it-scale.per_thread_ops 98.3% regression" || r.Branch != "linus:master" {
		t.Errorf("subject %q, branch %q", r.Subject, r.Branch)
	}
	if r.Change != (Headline{"will-it-scale.per_thread_ops", 98.3, "regression"}) {
		t.Errorf("headline %+v", r.Change)
	}
	if r.Commit != "7c4f75a21f636486d2969d9b6680403ea8483539" || r.CommitSubject != "futex: Allow to resize the private local hash" {
		t.Errorf("commit %q %q", r.Commit, r.CommitSubject)
	}
	if r.URL != "" || r.PatchLink != "" || r.MessageID != "202505151438.83b3b1ae-lkp@intel.com" {
		t.Errorf("url %q patch %q id %q", r.URL, r.PatchLink, r.MessageID)
	}
	if r.Testcase != "will-it-scale" || r.Compiler != "gcc-12" || !strings.HasPrefix(r.Machine, "224 threads 4 sockets") {
		t.Errorf("testcase %q compiler %q machine %q", r.Testcase, r.Compiler, r.Machine)
	}
	want := []Param{{"nr_task", "100%"}, {"mode", "thread"}, {"test", "futex4"}, {"cpufreq_governor", "performance"}}
	if len(r.Params) != len(want) {
		t.Fatalf("params %v", r.Params)
	}
	for i := range want {
		if r.Params[i] != want[i] {
			t.Errorf("param %d: %v, want %v", i, r.Params[i], want[i])
		}
	}
	if len(r.Also) != 1 || r.Also[0].Machine != "104 threads 2 sockets (Skylake) with 192G memory" || len(r.Also[0].Params) != 4 || r.Also[0].Params[3] != (Param{"test", "futex3"}) {
		t.Errorf("other tests %+v", r.Also)
	}
	if len(r.Blocks) != 2 {
		t.Fatalf("%d blocks, want 2 (two test machines)", len(r.Blocks))
	}
	b := r.Blocks[0]
	if b.Machine != "lkp-cpl-4sp2" || b.Axis("test") != "futex4" || b.Axis("nr_task") != "100%" || b.CompareKey != "commit" {
		t.Errorf("block 0: %+v", b)
	}
	if len(b.Sides) != 2 || b.Sides[0].ID != "b04e317b52" || b.Sides[1].Subject != "futex: Allow to resize the private local hash" {
		t.Errorf("sides %+v", b.Sides)
	}
	if len(b.Rows) != 6 {
		t.Fatalf("%d rows, want 6 (the fail:runs row is not one)", len(b.Rows))
	}
	pt, _ := b.Row("will-it-scale.per_thread_ops")
	if pt.Base != 21428413 || pt.New != 365020 || pt.Change != -98.3 || pt.BaseSD != 0 || pt.NewSD != 2 || pt.AbsoluteChange {
		t.Errorf("per_thread_ops row %+v", pt)
	}
	wl, _ := b.Row("will-it-scale.workload")
	if wl.Base != 4.8e9 {
		t.Errorf("workload's base %v, want 4.8e+09 read", wl.Base)
	}
	sys, _ := b.Row("mpstat.cpu.all.sys%")
	if !sys.AbsoluteChange || sys.Change != 5.9 {
		t.Errorf("a percent stat's absolute change: %+v", sys)
	}
	b2 := r.Blocks[1]
	if b2.Machine != "lkp-skl-fpga01" || b2.Axis("test") != "futex3" || !strings.HasPrefix(b2.Describe, "lkp-skl-fpga01: 104 threads") || len(b2.Rows) != 2 {
		t.Errorf("block 1: %+v", b2)
	}
}

// TestPatchMailInMbox reads a report on a patch from a mailing list
// (url:, base:, patch link:, patch subject:), quoted-printable, the second
// mail of an mbox.
func TestPatchMailInMbox(t *testing.T) {
	r := read(t, "patch-page_fault1.mbox")
	if r.URL != "https://github.com/intel-lab-lkp/linux/commits/Jane-Doe/mm-page_alloc-batch-the-free-of-pcp-pages/20250301-101010" {
		t.Errorf("url %q", r.URL)
	}
	if r.Base != "https://git.kernel.org/cgit/linux/kernel/git/akpm/mm.git mm-everything" || r.PatchLink != "https://lore.kernel.org/all/20250301020304.12345-1-jane@example.org/" {
		t.Errorf("base %q patch link %q", r.Base, r.PatchLink)
	}
	if r.PatchSubject != "[PATCH v2] mm: page_alloc: batch the free of pcp pages" || r.Commit != "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" {
		t.Errorf("patch subject %q commit %q", r.PatchSubject, r.Commit)
	}
	if r.Change != (Headline{"will-it-scale.per_process_ops", 12.4, "improvement"}) {
		t.Errorf("headline %+v", r.Change)
	}
	if v, _ := r.Param("mode"); v != "process" {
		t.Errorf("mode %q", v)
	}
	if len(r.Blocks) != 1 || len(r.Blocks[0].Rows) != 3 {
		t.Fatalf("blocks %+v", r.Blocks)
	}
	pf, _ := r.Blocks[0].Row("proc-vmstat.pgfault")
	if pf.Base != 1.235e9 || pf.New != 1.391e9 || pf.Change != 12.6 {
		t.Errorf("pgfault row %+v", pf)
	}
}

// TestMalformedRefused checks that what is not a robot report is refused
// with one line saying what is missing.
func TestMalformedRefused(t *testing.T) {
	good, err := os.ReadFile("testdata/linus-futex4.mail")
	if err != nil {
		t.Fatal(err)
	}
	g := string(good)
	cases := []struct{ name, mail, want string }{
		{"empty", "", "no 'testcase:' line"},
		{"prose", "Subject: hello\n\nJust a mail.\n", "no 'testcase:' line"},
		{"no commit", strings.Replace(g, "commit: 7c4f75a21f", "commit 7c4f75a21f", 1), "no 'commit: SHA' line"},
		{"no block", g[:strings.Index(g, "=====")], "no comparison block"},
		{"axes mismatch", strings.Replace(g, "/lkp-cpl-4sp2/futex4/", "/lkp-cpl-4sp2/", 1), "9 axes but 8 values"},
		{"bad row", strings.Replace(g, "  21428413           -98.3%", "  21428413           about", 1), "is not a row of the robot's block"},
		{"one side", strings.Replace(g, "  b04e317b52 (\"futex: Introduce futex_q_lockptr_lock()\")\n", "", 1), "with 1 sides"},
		{"mbox of others", "From a@b Sat Mar  1 10:00:00 2025\nSubject: x\n\nhi\n\nFrom c@d Sat Mar  1 10:00:00 2025\nSubject: y\n\nho\n", "none of the 2 mails"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.mail))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}
