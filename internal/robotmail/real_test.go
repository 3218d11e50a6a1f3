package robotmail

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
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
	// The other seventeen (README.md: the older template of 2019-2022,
	// and testcases the first ten lack).
	{"aim7-disk_src-490d451fa5.mail", "20190708091350.GP17490@shao2-debian", "", "aim7", "490d451fa5188975c21246f7f8f4914cd3f2d6f2",
		"aim7.jobs-per-min", -6.3, "regression", "72 threads Intel(R) Xeon(R) Gold 6139 CPU @ 2.30GHz", 1, 0, 85540, 80176, -6.3},
	{"filebench-3062a738d7.mail", "202409292200.d8132f52-oliver.sang@intel.com", "linux-next:master", "filebench", "3062a738d73c866bf50df13bc47a2223b7b47d87",
		"filebench.sum_operations/s", -85, "regression", "96 threads 2 sockets Intel(R) Xeon(R) Platinum 8260L", 1, 0, 273.04, 40.94, -85},
	{"fileio-6a3afb6ac6.mail", "202401021525.a27b9444-oliver.sang@intel.com", "linus:master", "fileio", "6a3afb6ac6dfab158ebdd4b87941178f58c8939f",
		"fileio.latency_95th_ms", 92.5, "regression", "128 threads 2 sockets Intel(R) Xeon(R) Platinum 8358", 1, 0, 37.99, 73.13, 92.5},
	{"fio-basic-4f3d1e4533.mail", "202307190954.683c919b-oliver.sang@intel.com", "linus:master", "fio-basic", "4f3d1e4533b0982034f316ace85415d3bc57e3da",
		"fio.write_iops", -2.5, "regression", "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU", 1, 0, 63226, 61625, -2.5},
	{"fsmark-app_overhead-ab62726202.mail", "202412271641.cfba5666-lkp@intel.com", "cel:nfsd-testing", "fsmark", "ab627262022ed8c6a68e619ed03a14e47acf2e39",
		"fsmark.app_overhead", 186.4, "regression", "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU", 1, 0, 3.393e+08, 9.717e+08, 186.4},
	{"fxmark-a794c9ad02.mail", "202407301600.a03deb58-oliver.sang@intel.com", "linus:master", "fxmark", "a794c9ad026f0a28044347f31929fcdb0270eadc",
		"fxmark.ssd_ext4_MWCL_18_bufferedio.works/sec", 10.9, "improvement", "128 threads 2 sockets Intel(R) Xeon(R) Platinum 8358", 2, 1, 187654, 208067, 10.9},
	{"phoronix-test-suite-fio-b6c81e63ec.mail", "20220613085029.GG7252@xsang-OptiPlex-9020", "", "phoronix-test-suite", "b6c81e63ec1e668f8df716a91c5386074411dbbe",
		"phoronix-test-suite.fio.SequentialWrite.Sync.Yes.No.4KB.DefaultTestDirectory.mb_s", -4.3, "regression", "96 threads 2 sockets Intel(R) Xeon(R) Gold 6252 CPU", 1, 0, 960, 919.17, -4.3},
	{"postmark-e491b8e430.mail", "202602130940.4cf74a62-lkp@intel.com", "cel:nfsd-testing", "postmark", "e491b8e4300585da77a96251f77577ebcaa7c5fc",
		"postmark.transactions", 15.2, "regression", "224 threads 4 sockets Intel(R) Xeon(R) Platinum 8380", 1, 0, 9.83, 8.33, -15.2},
	{"stress-ng-switch-01b9da291c.mail", "202605121641.b6a60cb0-lkp@intel.com", "linus:master", "stress-ng", "01b9da291c4969354807b52956f4aae1f41b4924",
		"stress-ng.switch.ops_per_sec", 67.7, "regression", "224 threads 2 sockets Intel(R) Xeon(R) Platinum 8480", 2, 1, 38288993, 12355813, -67.7},
	{"swapin-4e63aeb5d0.mail", "202408061623.ed5cd480-oliver.sang@intel.com", "linus:master", "swapin", "4e63aeb5d0101ddada36a2f64f048e2f9d2202fc",
		"swapin.throughput", -76.7, "regression", "4 threads 1 sockets Intel(R) Core(TM) i3-3220 CPU", 1, 0, 15933, 3719, -76.7},
	{"sysbench-fileio-060406c61c.mail", "202406252157.348c160f-oliver.sang@intel.com", "linus:master", "sysbench-fileio", "060406c61c7cb4bbd82a02d179decca9c9bb3443",
		"sysbench-fileio.write_operations/s", -1.7, "regression", "128 threads 2 sockets Intel(R) Xeon(R) Platinum 8358", 1, 0, 80.13, 78.74, -1.7},
	{"unixbench-pipe-4c40d6efc8.mail", "20210731063818.GB18773@xsang-OptiPlex-9020", "", "unixbench", "4c40d6efc8b22b88a45c335ffd6d25b55d769f5b",
		"unixbench.score", -3.3, "regression", "96 threads 2 sockets Intel(R) Xeon(R) CPU @ 2.30GHz", 2, 1, 1554, 1503, -3.3},
	{"vm-scalability-5893446d01.mail", "202407051414.1566be8e-oliver.sang@intel.com", "linux-next:master", "vm-scalability", "5893446d01d40f79d4c1ad73ee2db55aaeddbf02",
		"vm-scalability.throughput", 3.5, "improvement", "96 threads 2 sockets Intel(R) Xeon(R) Platinum 8260L", 1, 0, 3.317e+08, 3.432e+08, 3.5},
	{"adrestia-5484e31bbb.mail", "202309051653.1dce02c8-oliver.sang@intel.com", "linus:master", "adrestia", "5484e31bbbff285f9505c4766373f840ffb746e5",
		"adrestia.wakeup_cost_periodic_us", -33.3, "improvement", "8 threads 1 sockets Intel(R) Core(TM) i7-4770K CPU", 1, 0, 6, 4, -33.3},
	{"lmbench3-db86f55bf8.mail", "202511071439.d081322d-lkp@intel.com", "linus:master", "lmbench3", "db86f55bf81a3a297be05ee8775ae9a8c6e3a599",
		"lmbench3.PIPE.latency.us", 11.5, "improvement", "224 threads 2 sockets Intel(R) Xeon(R) Platinum 8480", 2, 1, 5.11, 4.52, -11.5},
	{"perf-bench-sched-pipe-779b1a1cb1.mail", "202508251419.d8117ed7-lkp@intel.com", "linus:master", "perf-bench-sched-pipe", "779b1a1cb13ae17028aeddb2fbbdba97357a1e15",
		"perf-bench-sched-pipe.ops_per_sec", 12.9, "regression", "192 threads 4 sockets Intel(R) Xeon(R) Platinum 9242", 2, 1, 217049, 189123, -12.9},
	{"reaim-32c523c578.mail", "202506121329.9d1f4d50-lkp@intel.com", "linus:master", "reaim", "32c523c578e8489f55663ce8a8860079c8deb414",
		"reaim.jobs_per_min", 16.1, "regression", "64 threads 2 sockets Intel(R) Xeon(R) Gold 6346 CPU", 2, 1, 4262, 3575, -16.1},
}

// reAnyRow matches a %stddev row of the robot's block on its own, without
// the parser: base [± N%] change new [± N%] stat, the deviation with or
// without a space after ±, the change with an exponent ("+8.8e+101%"),
// and the robot's mark of a row it discusses ("<-------- (a)").
var reAnyRow = regexp.MustCompile(`^ *-?[0-9.]+(e[+-]?[0-9]+)? *(± *[0-9]+%)? +[-+][0-9.]+(e[+-]?[0-9]+)?%? +-?[0-9.]+(e[+-]?[0-9]+)? *(± *[0-9]+%)? +\S+( +<-+.*)?$`)

// TestRealMails parses 27 real robot mails of 20 testcases, from 2019
// to 2026, in the robot's older and newer templates (the list:
// testdata/real/README.md) and checks what was read against each
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
			for _, l := range strings.Split(latin1(data), "\n") {
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
	if len(cases) < 20 {
		t.Errorf("%d testcases, want at least 20", len(cases))
	}
}

// TestRealMailsDetails checks the rows the old parser refused (a
// deviation of 100% or more: "±115%", no space) and the parts of the
// template some mails have: a tag as the base, a patch's links, the other
// tests' table, a negative mean.
func TestRealMailsDetails(t *testing.T) {
	get := func(file string) *Report {
		t.Helper()
		return read(t, "real/"+file)
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

// latin1 is data as UTF-8: as it is if it is UTF-8, else read as
// iso-8859-1 (the robot's charset: its "±" is the byte 0xB1).
func latin1(data []byte) string {
	if utf8.Valid(data) {
		return string(data)
	}
	u := make([]rune, len(data))
	for i, c := range data {
		u[i] = rune(c)
	}
	return string(u)
}

// TestRealMailsOlderTemplate reads the robot's template of 2019-2022,
// which the parser refused ("no 'testcase:' line"): "FYI, we noticed a
// ... due to commit:", "in testcase:", "on test machine:", "with
// following parameters:", a multipart mail with the job file attached,
// and a subject whose only bracket is the subsystem's ("[xfs]": no
// branch).
func TestRealMailsOlderTemplate(t *testing.T) {
	r := read(t, "real/aim7-disk_src-490d451fa5.mail")
	want := []Param{{"disk", "4BRD_12G"}, {"md", "RAID0"}, {"fs", "xfs"}, {"test", "disk_src"}, {"load", "3000"}, {"cpufreq_governor", "performance"}, {"ucode", "0x200005e"}}
	if len(r.Params) != len(want) {
		t.Fatalf("params %v", r.Params)
	}
	for i := range want {
		if r.Params[i] != want[i] {
			t.Errorf("param %d: %v, want %v", i, r.Params[i], want[i])
		}
	}
	if r.Branch != "" || r.Subject != "[xfs] 490d451fa5: aim7.jobs-per-min -6.3% regression" || r.CommitSubject != "xfs: fix inode_cluster_size rounding mayhem" {
		t.Errorf("branch %q subject %q commit %q", r.Branch, r.Subject, r.CommitSubject)
	}
	if s := r.Blocks[0].Sides; s[0] != (Side{"494dba7b27", "xfs: refactor inode geometry setup routines"}) || r.Blocks[0].Axis("load") != "3000" {
		t.Errorf("sides %+v", s)
	}
	r = read(t, "real/unixbench-pipe-4c40d6efc8.mail")
	if len(r.Also) != 1 || r.Also[0].Change != "will-it-scale: will-it-scale.per_thread_ops -1.3% regression" || len(r.Also[0].Params) != 5 ||
		r.Base != "https://git.kernel.org/cgit/linux/kernel/git/jack/linux-fs.git fsnotify" || r.Blocks[1].Axis("test") != "eventfd1" {
		t.Errorf("other test %+v, base %q", r.Also, r.Base)
	}
	r = read(t, "real/phoronix-test-suite-fio-b6c81e63ec.mail")
	if r.PatchLink != "https://lore.kernel.org/io-uring/20220608171741.3875418-9-shr@fb.com" || len(r.Params) != 9 || r.Blocks[0].Axis("option_a") != "Sequential Write" {
		t.Errorf("patch %q params %v axes %v", r.PatchLink, r.Params, r.Blocks[0].Axes)
	}
}

// TestRealMailsRowShapes checks rows the parser lost or skipped: the
// rows after the signature ("<below more details following above table
// FYI>", read as nothing: 23 of the block's 3248 rows were read), a row
// the robot marks ("<-------- (a)", skipped), and a change with an
// exponent ("+8.8e+101%").
func TestRealMailsRowShapes(t *testing.T) {
	r := read(t, "real/vm-scalability-5893446d01.mail")
	b := r.Blocks[0]
	if len(b.Rows) != 3248 {
		t.Errorf("%d rows, want the 23 before the signature and the 3225 after it", len(b.Rows))
	}
	if row, _ := b.Row("perf-profile.self.cycles-pp.intel_idle"); row.Base != 34.34 || row.BaseSD != 15 || row.Change != 4.5 || !row.AbsoluteChange || row.New != 38.83 || row.NewSD != 9 {
		t.Errorf("the last row after the signature: %+v", row)
	}
	r = read(t, "real/fsmark-app_overhead-ab62726202.mail")
	if row, ok := r.Blocks[0].Row("fsmark.files_per_sec"); !ok || row.Base != 6.4 || row.New != 6.4 || row.Change != 0 || len(r.Skipped) != 0 {
		t.Errorf("the marked row: %+v (found %v), skipped %v", row, ok, r.Skipped)
	}
	r = read(t, "real/fio-basic-4f3d1e4533.mail")
	if row, _ := r.Blocks[0].Row("meminfo.Mlocked"); row.Change != 8.8e101 || row.New != 0.88 || row.NewSD != 264 {
		t.Errorf("the +8.8e+101%% row: %+v", row)
	}
}

// TestRealReplies reads eight real replies in robot reports' threads
// (testdata/replies, README.md there), all refused before: four that
// quote a whole report ("> ", two quoted-printable, one of them UTF-8 in
// which the robot's iso-8859-1 "±" became "ą"; one format=flowed whose
// mailer made the block's spaces no-break ones), two that quote its head
// only (a report without blocks: the plan's base is the commit's parent;
// one of 2018, two quotes deep, its change signed: "+23.0% improvement"),
// and two whose own table compares three and four commits
// without 'commit:' lines (one base64, with the reply's "..." elisions).
func TestRealReplies(t *testing.T) {
	r := read(t, "replies/reply-fsmark-39d432fc76.mail")
	row, _ := r.Blocks[0].Row("fsmark.files_per_sec")
	if !r.Quoted || r.Bare || r.MessageID != "ZOdZ7DiQ4jqhoj0i@tissot.1015granger.net" || r.InReplyTo != "202308241229.68396422-oliver.sang@intel.com" ||
		r.Testcase != "fsmark" || r.Commit != "39d432fc76301cf0a0c454022117601994ca9397" || len(r.Blocks) != 2 || len(r.Also) != 1 ||
		row.Base != 61.92 || row.New != 0 || row.Change != -100 || row.BaseSD != 5 {
		t.Errorf("quoted report: quoted %v id %q in reply to %q, %s %s, %d blocks %d other tests, row %+v", r.Quoted, r.MessageID, r.InReplyTo, r.Testcase, r.Commit, len(r.Blocks), len(r.Also), row)
	}
	r = read(t, "replies/reply-qp-fsmark-b4be3ccf1c.mail")
	row, _ = r.Blocks[0].Row("fsmark.app_overhead")
	if !r.Quoted || r.Branch != "snitzer:cel-nfsd-next-6.12-rc5" || r.Change != (Headline{"fsmark.app_overhead", 92, "regression"}) || len(r.Params) != 10 ||
		row.Base != 2015880 || row.New != 3870164 || row.BaseSD != 3 || row.NewSD != 0 {
		t.Errorf("quoted-printable reply: quoted %v branch %q %+v params %v row %+v", r.Quoted, r.Branch, r.Change, r.Params, row)
	}
	r = read(t, "replies/reply-qp-utf8-pm-fsmark-38f83090f5.mail")
	row, _ = r.Blocks[0].Row("fsmark.app_overhead")
	if !r.Quoted || len(r.Skipped) != 0 || row.Base != 2032015 || row.BaseSD != 3 || row.Change != 51.9 || row.New != 3087623 {
		t.Errorf("the robot's ± read as ą: quoted %v skipped %v row %+v", r.Quoted, r.Skipped, row)
	}
	r = read(t, "replies/reply-head-only-will-it-scale-9bd0e337c6.mail")
	if !r.Quoted || len(r.Blocks) != 0 || r.Testcase != "will-it-scale" || r.Commit != "9bd0e337c6" || r.Change != (Headline{"will-it-scale.per_process_ops", -4.8, "regression"}) {
		t.Errorf("head only: quoted %v, %d blocks, %s %s %+v", r.Quoted, len(r.Blocks), r.Testcase, r.Commit, r.Change)
	}
	r = read(t, "replies/reply-2018-head-only-vm-scalability-309fe96bfc.mail")
	if !r.Quoted || len(r.Blocks) != 0 || r.Testcase != "vm-scalability" || r.Commit != "309fe96bfc0ae387f53612927a8f0dc3eb056efd" || len(r.Params) != 4 ||
		r.Change != (Headline{"vm-scalability.throughput", 23, "improvement"}) || r.Branch != "" || !strings.HasPrefix(r.Machine, "144 threads Intel(R) Xeon(R) CPU E7-8890 v3") {
		t.Errorf("2018, quoted twice deep, '+23.0%%': quoted %v, %d blocks, %s %s %+v branch %q machine %q", r.Quoted, len(r.Blocks), r.Testcase, r.Commit, r.Change, r.Branch, r.Machine)
	}
	r = read(t, "replies/reply-nbsp-fxmark-ca6dee6b79.mail")
	if rows := len(r.Blocks[0].Rows); !r.Quoted || r.Testcase != "fxmark" || rows != 60 || len(r.Skipped) != 0 || len(r.Blocks[0].Sides) != 2 {
		t.Errorf("no-break spaces: quoted %v %s, %d rows, skipped %v, sides %+v", r.Quoted, r.Testcase, rows, r.Skipped, r.Blocks[0].Sides)
	}
	r = read(t, "replies/reply-base64-aim7-92a8f471fa.mail")
	b := r.Blocks[0]
	row, _ = b.Row("aim7.jobs-per-min")
	if !r.Bare || len(b.Sides) != 3 || b.Sides[2] != (Side{"92a8f471fa", "fixup-for-32678f1513"}) || r.Commit != "32678f1513" || len(r.Skipped) != 0 ||
		row.Base != 464232 || row.Change != -5.6 || row.New != 438315 || len(row.More) != 1 || row.More[0] != (Cell{Change: -6.4, New: 434563}) {
		t.Errorf("three sides: bare %v sides %+v commit %q skipped %v row %+v", r.Bare, b.Sides, r.Commit, r.Skipped, row)
	}
	r = read(t, "replies/reply-four-sides-will-it-scale.mail")
	b = r.Blocks[0]
	row, _ = b.Row("will-it-scale.per_process_ops")
	if len(b.Sides) != 4 || b.CompareKey != "commit" || b.Axis("test") != "page_fault2" || len(row.More) != 2 || row.More[1] != (Cell{Change: -13, New: 79833}) {
		t.Errorf("four sides: %+v, row %+v", b.Sides, row)
	}
}

// TestReplyQuotingNothing refuses a reply in a report's thread that
// quotes none of it, saying so (constructed: a real reply's subject, a
// line of prose).
func TestReplyQuotingNothing(t *testing.T) {
	_, err := Parse([]byte("Subject: Re: [linus:master] [mm] 01b9da291c: stress-ng.switch.ops_per_sec 67.7% regression\n\nThanks, looking into it.\n"))
	if err == nil || !strings.Contains(err.Error(), "quotes none of the report") {
		t.Errorf("%v", err)
	}
}

// TestMboxPrefersTheReport reads a thread's mbox (constructed from two
// real mails: a reply that quotes a report, then the report) as the
// report, not the reply's quote of it; the reply alone is read as quoted.
func TestMboxPrefersTheReport(t *testing.T) {
	reply, err := os.ReadFile("testdata/replies/reply-fsmark-39d432fc76.mail")
	if err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile("testdata/real/fsmark-app_overhead-ab62726202.mail")
	if err != nil {
		t.Fatal(err)
	}
	mbox := "From mboxrd@z Thu Jan  1 00:00:00 1970\n" + string(reply) + "\nFrom mboxrd@z Thu Jan  1 00:00:00 1970\n" + string(report)
	r, err := Parse([]byte(mbox))
	if err != nil {
		t.Fatal(err)
	}
	if r.Quoted || r.MessageID != "202412271641.cfba5666-lkp@intel.com" {
		t.Errorf("thread mbox: quoted %v, id %q", r.Quoted, r.MessageID)
	}
	mbox = "From mboxrd@z Thu Jan  1 00:00:00 1970\n" + string(reply)
	if r, err := Parse([]byte(mbox)); err != nil || !r.Quoted {
		t.Errorf("the reply alone: %v", err)
	}
}

// TestForwardedAsAttachment reads a report forwarded as an attachment
// (constructed: a forwarder's note, then a real report as message/rfc822):
// the note is not a report, the attached one is.
func TestForwardedAsAttachment(t *testing.T) {
	report, err := os.ReadFile("testdata/real/fsmark-app_overhead-ab62726202.mail")
	if err != nil {
		t.Fatal(err)
	}
	mail := "Subject: Fwd: [cel:nfsd-testing] [nfsd] ab62726202: fsmark.app_overhead 186.4% regression\nMessage-ID: <fwd@example.org>\n" +
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"fwd\"\n\n--fwd\nContent-Type: text/plain\n\nFYI, the robot's report below.\n\n" +
		"--fwd\nContent-Type: message/rfc822\n\n" + string(report) + "\n--fwd--\n"
	r, err := Parse([]byte(mail))
	if err != nil {
		t.Fatal(err)
	}
	if r.Testcase != "fsmark" || r.Commit != "ab627262022ed8c6a68e619ed03a14e47acf2e39" || r.MessageID != "fwd@example.org" || len(r.Blocks) != 1 {
		t.Errorf("forwarded: %s %s %s, %d blocks", r.Testcase, r.Commit, r.MessageID, len(r.Blocks))
	}
}
