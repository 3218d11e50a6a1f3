package evidence

import (
	"math"
	"strings"
	"testing"
)

// A perf script excerpt of three samples (periods 1, 1 and 2 ms): the
// leaf is the first frame; a symbol twice on one stack counts once in
// children; an unnamed frame is named by its object.
const scriptSample = `contend 25140/25140    1000000 
	ffffffff816193b5 folio_add_file_rmap_ptes+0x15 ([kernel.kallsyms])
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	           9431a runtime.open.abi0 (/work/bin/contend)

contend 25140/25141    1000000 
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	ffffffff815a3287 filemap_map_pages ([kernel.kallsyms])
	           9431a runtime.open.abi0 (/work/bin/contend)

faultme 25142/25142    2000000 
	    7f0012345678 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
	           9431a runtime.open.abi0 (/work/bin/contend)

`

func TestFoldScript(t *testing.T) {
	p, err := foldScript(strings.NewReader(scriptSample), 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 3 || p.Total != 4e6 {
		t.Fatalf("samples %d total %v, want 3 and 4e6", p.Samples, p.Total)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near("self folio_add_file_rmap_ptes", p.Self["folio_add_file_rmap_ptes"], 25)
	near("self filemap_map_pages", p.Self["filemap_map_pages"], 25)
	near("self libc", p.Self["[unknown] (libc.so.6)"], 50)
	near("children filemap_map_pages", p.Children["filemap_map_pages"], 50) // once per sample
	near("children runtime.open.abi0", p.Children["runtime.open.abi0"], 100)
	if got := p.Folded["contend;runtime.open.abi0;filemap_map_pages;folio_add_file_rmap_ptes"]; got != 1e6 {
		t.Errorf("folded stack = %v, want 1e6: %v", got, p.Folded)
	}
	if got := Top(p.Self, 25, 2); len(got) != 2 || got[0] != "[unknown] (libc.so.6)" || got[1] != "filemap_map_pages" {
		t.Errorf("Top = %v", got)
	}
}

// A system-wide perf script excerpt (--show-task-events): the recording
// started with process 500 (the child) stopped; 500 forks 501 (a
// process) and a thread 500/502; 501 forks 503; an unrelated 900 forks
// 901. Samples of 500, 502's thread, 501 and 503 are the child's; 900's
// and 901's, and the idle task's, are not; nor, once 501 has ended, those
// of the process 900 forks with its pid.
const wideSample = `swapper     0/0     PERF_RECORD_FORK(500:500):(400:400)
contend     0/0     PERF_RECORD_COMM: contend:500/500
contend  500/500  PERF_RECORD_FORK(501:501):(500:500)
contend  500/500  PERF_RECORD_FORK(500:502):(500:500)
other  900/900  PERF_RECORD_FORK(901:901):(900:900)
contend  500/500     1000 
	ffffffff81000001 child_main ([kernel.kallsyms])

contend  500/502     1000 
	ffffffff81000002 child_thread ([kernel.kallsyms])

worker  501/501  PERF_RECORD_COMM exec: worker:501/501
worker  501/501  PERF_RECORD_FORK(503:503):(501:501)
worker  501/501     1000 
	ffffffff81000003 child_worker ([kernel.kallsyms])

sh  503/503     1000 
	ffffffff81000004 grandchild ([kernel.kallsyms])

other  900/900     1000 
	ffffffff81000005 not_ours ([kernel.kallsyms])

other  901/901     1000 
	ffffffff81000006 not_ours_either ([kernel.kallsyms])

swapper     0/0     1000 
	ffffffff81000007 default_idle ([kernel.kallsyms])

worker  501/501  PERF_RECORD_EXIT(501:501):(500:500)
:-1  -1/-1  PERF_RECORD_LOST lost 12
other  900/900  PERF_RECORD_FORK(501:501):(900:900)
other  501/501     1000 
	ffffffff81000008 reused_pid ([kernel.kallsyms])

`

// TestFoldScriptKeepsTheChildsProcesses: a system-wide recording is
// folded over the samples of the child's process tree only (its
// threads, the processes it forked and theirs), each folded stack
// starting with the task's command name.
func TestFoldScriptKeepsTheChildsProcesses(t *testing.T) {
	p, err := foldScript(strings.NewReader(wideSample), 500)
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 4 || p.Total != 4000 || p.Lost != 12 {
		t.Errorf("samples %d total %v lost %d, want the child's 4 (4000), 12 lost", p.Samples, p.Total, p.Lost)
	}
	for _, s := range []string{"child_main", "child_thread", "child_worker", "grandchild"} {
		if p.Self[s] != 25 {
			t.Errorf("self %s = %v, want 25", s, p.Self[s])
		}
	}
	for _, s := range []string{"not_ours", "not_ours_either", "default_idle", "reused_pid"} {
		if _, ok := p.Self[s]; ok {
			t.Errorf("%s (not the child's) was kept", s)
		}
	}
	want := map[string]float64{"contend;child_main": 1000, "contend;child_thread": 1000, "worker;child_worker": 1000, "sh;grandchild": 1000}
	if len(p.Folded) != len(want) {
		t.Errorf("folded %v, want %v", p.Folded, want)
	}
	for k, v := range want {
		if p.Folded[k] != v {
			t.Errorf("folded %q = %v, want %v (%v)", k, p.Folded[k], v, p.Folded)
		}
	}
	// Without a root every sample is kept.
	all, err := foldScript(strings.NewReader(wideSample), 0)
	if err != nil || all.Samples != 8 {
		t.Errorf("no root: %d samples (%v), want 8", all.Samples, err)
	}
}

// TestFoldedRoundTrip: WriteFolded writes "stack count" lines sorted by
// stack, whole counts; ReadFolded reads them back (summing a stack on
// two lines) and refuses a line without a count.
func TestFoldedRoundTrip(t *testing.T) {
	st := map[string]float64{"sh;main;b": 2000, "sh;main;a": 1000.4, "a b (x);c": 3}
	var b strings.Builder
	if err := WriteFolded(&b, st); err != nil {
		t.Fatal(err)
	}
	if want := "a b (x);c 3\nsh;main;a 1000\nsh;main;b 2000\n"; b.String() != want {
		t.Errorf("WriteFolded:\n%s\nwant:\n%s", b.String(), want)
	}
	back, err := ReadFolded(strings.NewReader(b.String() + "sh;main;a 5\n"))
	if err != nil || back["sh;main;a"] != 1005 || back["a b (x);c"] != 3 || len(back) != 3 {
		t.Errorf("ReadFolded = %v, %v", back, err)
	}
	for _, bad := range []string{"nocount\n", "sh;main x\n", "sh;main -1\n"} {
		if _, err := ReadFolded(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadFolded(%q) took it", bad)
		}
	}
}
