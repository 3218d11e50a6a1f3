package robotmail

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// realMail is what one real robot mail (testdata/real, README.md there)
// says in its own text: the values the parse must give back.
type realMail struct {
	file, id, branch, testcase, commit string
	stat                               string
	percent                            float64
	kind                               string
	machine                            string // a prefix of the test machine: line
	blocks, also                       int
	base, new, change                  float64 // the headline's row in the first block
}

var realMails = []realMail{
	{"aim7-disk_src-f4818881c4.mail", "202505191021.9e9f0ba2-lkp@intel.com", "linus:master", "aim7", "f4818881c47fd91fcb6d62373c57c7844e3de1c0",
		"aim7.jobs-per-min", 1.2, "regression", "96 threads 2 sockets Intel(R) Xeon(R) Platinum 8260L", 2, 1, 75730, 74795, -1.2},
	{"fsmark-nfsv4-d7f6562ade.mail", "202410301321.d8aebe67-oliver.sang@intel.com", "", "fsmark", "d7f6562adeebe62458eb11437b260d3f470849cd",
		"fsmark.files_per_sec", 10.2, "regression", "48 threads 2 sockets Intel(R) Xeon(R) CPU E5-2697 v2", 2, 1, 3016, 2707, -10.2},
	{"hackbench-85e511df3c.mail", "202409231416.9403c2e9-oliver.sang@intel.com", "linus:master", "hackbench", "85e511df3cec46021024176672a748008ed135bf",
		"hackbench.throughput", -13.1, "regression", "224 threads 2 sockets Intel(R) Xeon(R) Platinum 8480CTDX", 1, 0, 623219, 541887, -13.1},
	{"netperf-sctp-5cde54f822.mail", "202509241629.3d135124-lkp@intel.com", "", "netperf", "5cde54f8220b582bda9c34ef86e04ec00be4ce4a",
		"netperf.Throughput_Mbps", 33.9, "regression", "192 threads 2 sockets Intel(R) Xeon(R) 6740E", 1, 0, 1386, 916.08, -33.9},
	{"stress-ng-pthread-7903f907a2.mail", "202502191317.d0050992-lkp@intel.com", "linux-next:master", "stress-ng", "7903f907a226058ed99f86e9924e082aea57fc45",
		"stress-ng.pthread.ops_per_sec", 23.4, "improvement", "224 threads 2 sockets Intel(R) Xeon(R) Platinum 8480CTDX", 2, 1, 166143, 204943, 23.4},
	{"stress-ng-seek-3d04e89a11.mail", "202308141149.d38fdf91-oliver.sang@intel.com", "brauner-vfs:vfs.fdget_pos", "stress-ng", "3d04e89a11244255549fe838e9c6126e0e64729b",
		"stress-ng.seek.ops_per_sec", -4.8, "regression", "36 threads 1 sockets Intel(R) Core(TM) i9-10980XE", 1, 0, 380493, 362170, -4.8},
	{"unixbench-double-b41f5a411f.mail", "202601071255.645ef92e-lkp@intel.com", "paulmckrcu:dev.2025.12.16a", "unixbench", "b41f5a411fb5f8c76c1d945ab391873414d01647",
		"unixbench.throughput", 2.0, "improvement", "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346", 2, 1, 2.114e9, 2.156e9, 2.0},
	{"vm-scalability-d2136d749d.mail", "202406201010.a1344783-oliver.sang@intel.com", "linus:master", "vm-scalability", "d2136d749d76af980b3accd72704eea4eab625bd",
		"vm-scalability.throughput", -7.1, "regression", "128 threads 2 sockets Intel(R) Xeon(R) Gold 6338", 1, 0, 7392513, 6865649, -7.1},
	{"will-it-scale-context_switch1-5e963f2bd4.mail", "202309132209.cae4f58a-oliver.sang@intel.com", "linus:master", "will-it-scale", "5e963f2bd4654a202a8a05aa3a86cb0300b10e6c",
		"will-it-scale.per_thread_ops", 2.5, "improvement", "104 threads 2 sockets (Skylake) with 192G memory", 1, 0, 176131, 180589, 2.5},
	{"will-it-scale-tlb_flush3-375700bab5.mail", "202508150803.d5387224-lkp@intel.com", "linus:master", "will-it-scale", "375700bab5b150e876e42d894a9a7470881f8a61",
		"will-it-scale.per_thread_ops", 2.6, "regression", "192 threads 4 sockets Intel(R) Xeon(R) Platinum 9242", 1, 0, 3016, 2938, -2.6},
}

// reAnyRow matches a %stddev row of the robot's block on its own, without
// the parser: base [± N%] change new [± N%] stat, the deviation with or
// without a space after ±.
var reAnyRow = regexp.MustCompile(`^ *-?[0-9.]+(e[+-]?[0-9]+)? *(± *[0-9]+%)? +[-+][0-9.]+%? +-?[0-9.]+(e[+-]?[0-9]+)? *(± *[0-9]+%)? +\S+$`)

// TestRealMails parses ten real robot mails of eight testcases (the
// list: testdata/real/README.md) and checks what was read against each
// mail's text: Message-ID, branch, testcase, commit, the headline and its
// row, the machine, the blocks and the other tests; every row of every
// block is read (as many as the rows an independent pattern finds in the
// file), none skipped.
func TestRealMails(t *testing.T) {
	files, _ := filepath.Glob("testdata/real/*.mail")
	if len(files) != len(realMails) {
		t.Fatalf("%d mails in testdata/real, %d in the table", len(files), len(realMails))
	}
	cases := map[string]bool{}
	for _, m := range realMails {
		cases[m.testcase] = true
		t.Run(m.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/real", m.file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(data)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if r.MessageID != m.id || r.Branch != m.branch || r.Testcase != m.testcase || r.Commit != m.commit {
				t.Errorf("id %q branch %q testcase %q commit %q", r.MessageID, r.Branch, r.Testcase, r.Commit)
			}
			if r.Change != (Headline{m.stat, m.percent, m.kind}) {
				t.Errorf("headline %+v, want %s %v %s", r.Change, m.stat, m.percent, m.kind)
			}
			if !strings.HasPrefix(r.Machine, m.machine) {
				t.Errorf("machine %q, want %q...", r.Machine, m.machine)
			}
			if len(r.Blocks) != m.blocks || len(r.Also) != m.also {
				t.Fatalf("%d blocks and %d other tests, want %d and %d", len(r.Blocks), len(r.Also), m.blocks, m.also)
			}
			row, ok := r.Blocks[0].Row(m.stat)
			if !ok || row.Base != m.base || row.New != m.new || row.Change != m.change || row.AbsoluteChange {
				t.Errorf("headline row %+v (found %v), want %v -> %v (%+v%%)", row, ok, m.base, m.new, m.change)
			}
			if tc := r.Blocks[0].Axis("testcase"); tc != m.testcase {
				t.Errorf("first block's testcase %q", tc)
			}
			if len(r.Skipped) != 0 {
				t.Errorf("skipped rows: %v", r.Skipped)
			}
			want := 0
			for _, l := range strings.Split(string(data), "\n") {
				if reAnyRow.MatchString(l) {
					want++
				}
			}
			got := 0
			for _, b := range r.Blocks {
				got += len(b.Rows)
				if len(b.Sides) != 2 || b.Machine == "" {
					t.Errorf("block %q: sides %v", b.Machine, b.Sides)
				}
			}
			if got != want || want < 10 {
				t.Errorf("%d rows read, the file has %d", got, want)
			}
		})
	}
	if len(cases) < 4 {
		t.Errorf("%d testcases, want at least 4", len(cases))
	}
}

// TestRealMailsDetails checks the rows the old parser refused (a
// deviation of 100% or more: "±115%", no space) and the parts of the
// template some mails have: a tag as the base, a patch's links, the other
// tests' table, a negative mean.
func TestRealMailsDetails(t *testing.T) {
	get := func(file string) *Report {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("testdata/real", file))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		return r
	}
	r := get("will-it-scale-tlb_flush3-375700bab5.mail")
	row, _ := r.Blocks[0].Row("perf-sched.wait_and_delay.avg.ms.anon_pipe_read.vfs_read.ksys_read.do_syscall_64")
	if row.Base != 47.56 || row.BaseSD != 115 || row.Change != 220.4 || row.New != 152.39 || row.NewSD != 11 {
		t.Errorf("±115%% row: %+v", row)
	}
	row, _ = r.Blocks[0].Row("perf-sched.wait_time.avg.ms.__cond_resched.unmap_vmas.vms_clear_ptes.part.0")
	if row.BaseSD != 73 || row.NewSD != 109 || row.Change != -73.6 {
		t.Errorf("±109%% row: %+v", row)
	}
	r = get("stress-ng-seek-3d04e89a11.mail")
	if s := r.Blocks[0].Sides; s[0] != (Side{"v6.5-rc1", ""}) || s[1].ID != "3d04e89a11" {
		t.Errorf("a tag as the base: sides %+v", s)
	}
	r = get("fsmark-nfsv4-d7f6562ade.mail")
	if r.PatchLink != "https://lore.kernel.org/all/20241023024222.691745-7-neilb@suse.de/" || !strings.HasPrefix(r.URL, "https://github.com/intel-lab-lkp/linux/commits/NeilBrown/") ||
		r.Base != "git://git.linux-nfs.org/projects/trondmy/linux-nfs.git linux-next" {
		t.Errorf("patch %q url %q base %q", r.PatchLink, r.URL, r.Base)
	}
	if row, _ := r.Blocks[0].Row("sched_debug.cpu.nr_uninterruptible.min"); row.Base != -17.5 || row.New != -12 || row.Change != -31.4 {
		t.Errorf("negative mean: %+v", row)
	}
	if len(r.Also[0].Params) != 11 || r.Also[0].Params[2] != (Param{"filesize", "9B"}) || r.Blocks[1].Axis("filesize") != "9B" {
		t.Errorf("other test %+v, second block's filesize %q", r.Also[0], r.Blocks[1].Axis("filesize"))
	}
	r = get("aim7-disk_src-f4818881c4.mail")
	im := r.Also[0]
	if im.Change != "netperf: netperf.Throughput_Mbps  1.8% regression" || !strings.HasPrefix(im.Machine, "128 threads 2 sockets") || len(im.Params) != 6 {
		t.Errorf("other test %+v", im)
	}
	if b := r.Blocks[1]; b.Machine != "lkp-icl-2sp2" || b.Axis("testcase") != "netperf" || !strings.HasPrefix(b.Describe, "lkp-icl-2sp2: 128 threads") {
		t.Errorf("second block %s %q %q", b.Machine, b.Axis("testcase"), b.Describe)
	}
	if row, _ := r.Blocks[1].Row("perf-sched.wait_time.max.ms.irqentry_exit_to_user_mode.asm_sysvec_reschedule_ipi.[unknown]"); row.Change != 3259.9 || row.NewSD != 185 {
		t.Errorf("±185%% row: %+v", row)
	}
}
