package tune

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeRoot builds a fake sysfs/procfs with files (relative path ->
// content) under a temporary directory.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// bareMetal is a 4-CPU machine with every control and nothing tuned.
func bareMetal() map[string]string {
	m := map[string]string{
		"sys/devices/system/cpu/online":                                   "0-3",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors": "performance powersave",
		"sys/devices/system/cpu/intel_pstate/no_turbo":                    "0",
		"proc/sys/kernel/randomize_va_space":                              "2",
		"sys/kernel/mm/transparent_hugepage/enabled":                      "always [madvise] never",
		"proc/sys/kernel/perf_event_max_sample_rate":                      "100000",
	}
	for _, c := range []string{"0", "1", "2", "3"} {
		m["sys/devices/system/cpu/cpu"+c+"/cpufreq/scaling_governor"] = "powersave"
	}
	for _, irq := range []string{"0", "1", "9", "24"} {
		m["proc/irq/"+irq+"/smp_affinity_list"] = "0-3"
	}
	return m
}

func values(t *testing.T, root string, m map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p := range m {
		v, err := read(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = v
	}
	return out
}

func statuses(rs []Result) map[string]Status {
	m := map[string]Status{}
	for _, r := range rs {
		m[r.Name] = r.Status
	}
	return m
}

func TestApplyThenResetRestoresEverySetting(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	state := filepath.Join(root, "var/lib/contend/tune.json")
	before := values(t, root, files)
	rs, err := Apply(root, state, Options{THP: "never"})
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range statuses(rs) {
		if st != StatusSet {
			t.Errorf("%s: %s, want set (%v)", name, st, rs)
		}
	}
	want := map[string]string{
		"sys/devices/system/cpu/cpu2/cpufreq/scaling_governor": "performance",
		"sys/devices/system/cpu/intel_pstate/no_turbo":         "1",
		"proc/sys/kernel/randomize_va_space":                   "0",
		"sys/kernel/mm/transparent_hugepage/enabled":           "never",
		"proc/irq/24/smp_affinity_list":                        "0",
		"proc/sys/kernel/perf_event_max_sample_rate":           "1",
	}
	for p, w := range want {
		if v, _ := read(root, p); v != w {
			t.Errorf("%s = %q after tune, want %q", p, v, w)
		}
	}
	st, err := LoadState(state)
	if err != nil || st == nil {
		t.Fatalf("no saved state after tune: %v", err)
	}
	if i := st.find("proc/sys/kernel/randomize_va_space"); i < 0 || st.Entries[i].Old != "2" {
		t.Errorf("saved state %+v lacks aslr's original 2", st.Entries)
	}
	if cur := Current(root); cur["tune.aslr"] != "0" || !strings.HasPrefix(cur["tune.state"], "tuned by contend") || cur["tune.irq"] != "4 on CPU 0" {
		t.Errorf("Current after tune: %v", cur)
	}
	rs, err = Reset(root, state)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 6 {
		t.Errorf("reset results %v, want one per setting (6)", rs)
	}
	after := values(t, root, files)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s = %q after reset, want %q", p, after[p], v)
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("state file still there after reset: %v", err)
	}
	if rs, err := Reset(root, state); err != nil || rs[0].Status != StatusNotSaved {
		t.Errorf("second reset: %v %v, want nothing saved", rs, err)
	}
}

func TestSecondTuneKeepsTheOriginalValues(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	state := filepath.Join(root, "state.json")
	if _, err := Apply(root, state, Options{}); err != nil {
		t.Fatal(err)
	}
	rs, err := Apply(root, state, Options{THP: "never"})
	if err != nil {
		t.Fatal(err)
	}
	if s := statuses(rs); s["aslr"] != StatusAlready || s["thp"] != StatusSet {
		t.Errorf("second tune: %v, want aslr already so, thp set", rs)
	}
	st, _ := LoadState(state)
	for _, e := range st.Entries {
		if e.Old != before(files, e.Path) {
			t.Errorf("saved %s = %q, want the original %q", e.Path, e.Old, before(files, e.Path))
		}
	}
	if _, err := Reset(root, state); err != nil {
		t.Fatal(err)
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("%s = %q after reset, want %q", p, v, before(files, p))
		}
	}
}

// before is the value read() gives for the original content of p.
func before(files map[string]string, p string) string {
	v := files[p]
	if i := strings.IndexByte(v, '['); i >= 0 {
		return v[i+1 : i+strings.IndexByte(v[i:], ']')]
	}
	return v
}

func TestNotAvailableAndAlreadySo(t *testing.T) {
	// A one-CPU VM: no cpufreq, no boost control, ASLR already off.
	root := fakeRoot(t, map[string]string{
		"sys/devices/system/cpu/online":              "0",
		"proc/sys/kernel/randomize_va_space":         "0",
		"proc/sys/kernel/perf_event_max_sample_rate": "1",
		"proc/irq/0/smp_affinity_list":               "0",
	})
	state := filepath.Join(root, "state.json")
	rs, err := Apply(root, state, Options{THP: "never"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"governor": StatusNotAvail, "turbo": StatusNotAvail, "aslr": StatusAlready, "thp": StatusNotAvail, "irq": StatusNotAvail, "perf": StatusAlready}
	got := statuses(rs)
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %s, want %s", n, got[n], w)
		}
	}
	for _, r := range rs {
		if r.Status == StatusNotAvail && r.Detail == "" {
			t.Errorf("%s not available without a reason", r.Name)
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("a state file was written though nothing changed")
	}
}

func TestBoostAndPartialIRQs(t *testing.T) {
	files := map[string]string{
		"sys/devices/system/cpu/online":         "0-3",
		"sys/devices/system/cpu/cpufreq/boost":  "1",
		"proc/irq/0/smp_affinity_list":          "0-3",
		"proc/irq/1/smp_affinity_list":          "0-3",
		"sys/devices/system/cpu/cpu0/cpufreq/x": "",
	}
	root := fakeRoot(t, files)
	// An IRQ the kernel refuses to move (here: a directory, EISDIR).
	if err := os.MkdirAll(filepath.Join(root, "proc/irq/2/smp_affinity_list"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "state.json")
	rs, err := Apply(root, state, Options{CPUs: []int{2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	s := statuses(rs)
	if s["turbo"] != StatusSet {
		t.Errorf("turbo: %v", rs)
	}
	if v, _ := read(root, "sys/devices/system/cpu/cpufreq/boost"); v != "0" {
		t.Errorf("boost = %q, want 0", v)
	}
	for _, r := range rs {
		if r.Name == "irq" && (r.Status != StatusSet || !strings.Contains(r.Detail, "2 of 3 files (0-1)") || !strings.Contains(r.Detail, "1 refused")) {
			t.Errorf("irq: %s", r)
		}
	}
	if v, _ := read(root, "proc/irq/1/smp_affinity_list"); v != "0-1" {
		t.Errorf("irq 1 affinity %q, want 0-1 (away from --cpus 2-3)", v)
	}
	if _, err := Reset(root, state); err != nil {
		t.Fatal(err)
	}
	if v, _ := read(root, "proc/irq/1/smp_affinity_list"); v != "0-3" {
		t.Errorf("irq 1 affinity %q after reset, want 0-3", v)
	}
}

func TestStateIsSavedBeforeAnyChange(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	// A state file nobody can create, not even root: /proc takes no
	// new files.
	_, err := Apply(root, "/proc/contend-tune-test.json", Options{})
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Apply with an unwritable state: %v, want a refusal", err)
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("%s changed to %q although the state could not be saved", p, v)
		}
	}
}

func TestPlanChangesNothing(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	rs := Plan(root, Options{})
	s := statuses(rs)
	if s["aslr"] != StatusWouldSet || s["thp"] != StatusLeft || s["irq"] != StatusWouldSet {
		t.Errorf("plan: %v", rs)
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("plan changed %s to %q", p, v)
		}
	}
}

// TestResetAfterCrash kills a tuning process (SIGKILL) right after its
// first change; the saved state lets a later Reset put everything back.
func TestResetAfterCrash(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	state := filepath.Join(root, "var/lib/contend/tune.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
	cmd.Env = append(os.Environ(), "TUNE_CRASH_ROOT="+root, "TUNE_CRASH_STATE="+state)
	err := cmd.Run()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v", err)
	}
	changed := 0
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			changed++
		}
	}
	if changed != 1 {
		t.Fatalf("%d values changed before the crash, want 1", changed)
	}
	st, _ := LoadState(state)
	if st == nil || len(st.Entries) < 6 {
		t.Fatalf("saved state after the crash: %+v", st)
	}
	if _, err := Reset(root, state); err != nil {
		t.Fatal(err)
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("%s = %q after reset, want %q", p, v, before(files, p))
		}
	}
}

// TestCrashHelper is TestResetAfterCrash's tuning process.
func TestCrashHelper(t *testing.T) {
	root := os.Getenv("TUNE_CRASH_ROOT")
	if root == "" {
		t.Skip("helper of TestResetAfterCrash")
	}
	afterWrite = func(string) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	}
	Apply(root, os.Getenv("TUNE_CRASH_STATE"), Options{THP: "never"})
}

func TestListsAndCheck(t *testing.T) {
	files := bareMetal()
	files["sys/devices/system/cpu/smt/active"] = "1"
	files["sys/devices/system/cpu/isolated"] = "2-3"
	files["proc/cmdline"] = "root=/dev/sda isolcpus=2-3 nohz_full=2-3"
	files["proc/loadavg"] = "0.50 0.40 0.30 1/100 42"
	files["sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_min_freq"] = "800000"
	files["sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"] = "3600000"
	files["sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count"] = "3"
	files["sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count"] = "4"
	files["proc/77/stat"] = "77 (my (odd) prog) R 1 77 77 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0"
	root := fakeRoot(t, files)
	r := CheckMachine(root, Options{}, 0)
	if r.SMT != "on" || r.Isolated != "2-3" || len(r.Cmdline) != 2 || r.Load != "0.50 0.40 0.30" ||
		r.Freq != "0.80 GHz to 3.60 GHz" || r.Throttle["core_throttle_count"] != 7 || len(r.Online) != 4 {
		t.Errorf("CheckMachine: %+v", r)
	}
	if p := ticks(root)[77]; p.Comm != "my (odd) prog" || p.CPU != 300 {
		t.Errorf("ticks: %+v, want my (odd) prog with 300 ticks", p)
	}
}

// TestReasonsNamePathsFromRoot: a reason names a system file as people
// know it, from "/" ("no /proc/sys/kernel/randomize_va_space"); the
// reasons printed "sys/..." and "proc/...", the paths under the root.
func TestReasonsNamePathsFromRoot(t *testing.T) {
	relative := regexp.MustCompile(`(^|[^/\w])(sys|proc)/`)
	// Nothing at all: every setting says why it is not available.
	for _, s := range Settings(fakeRoot(t, map[string]string{"sys/devices/system/cpu/online": "0-3"}), Options{THP: "never"}) {
		if s.NotAvail == "" {
			t.Errorf("%s: available on an empty root", s.Name)
		}
		if relative.MatchString(s.NotAvail) {
			t.Errorf("%s: %q names a path without its leading /", s.Name, s.NotAvail)
		}
	}
	// A file that cannot be read (a directory) and one that cannot be put
	// back.
	root := fakeRoot(t, map[string]string{
		"sys/devices/system/cpu/online": "0-3",
		"proc/irq/0/smp_affinity_list":  "0-3",
	})
	if err := os.MkdirAll(filepath.Join(root, "proc/irq/2/smp_affinity_list"), 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "state.json")
	rs, err := Apply(root, state, Options{CPUs: []int{2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, r := range rs {
		if relative.MatchString(r.Detail) {
			t.Errorf("%s: %q names a path without its leading /", r.Name, r.Detail)
		}
		if r.Name == "irq" {
			seen = true
			if !strings.Contains(r.Detail, "cannot read /proc/irq/2/smp_affinity_list") {
				t.Errorf("irq: %q, want the unreadable file named from /", r.Detail)
			}
		}
	}
	if !seen {
		t.Fatalf("no irq result: %v", rs)
	}
	if err := os.Remove(filepath.Join(root, "proc/irq/0/smp_affinity_list")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "proc/irq/0/smp_affinity_list"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Reset(root, state)
	if err == nil || !strings.Contains(err.Error(), "putting back /proc/irq/0/smp_affinity_list = 0-3") {
		t.Errorf("Reset of a file that cannot be written: %v, want it named from /", err)
	}
}

// refuseWrites makes the file at path refuse writes and stay readable, as
// the kernel refuses to move some IRQs: read-only for a user, immutable
// (FS_IOC_SETFLAGS) for root, whom modes do not stop. It skips where the
// file system has no immutable flag. The function returned undoes it
// (it is also undone when the test ends).
func refuseWrites(t *testing.T, path string) (undo func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return func() { os.Chmod(path, 0o644) }
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
	}
	if err != nil {
		t.Skipf("cannot make %s immutable here (%v): root writes any file", path, err)
	}
	undo = func() {
		if f, err := os.Open(path); err == nil {
			unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			f.Close()
		}
	}
	t.Cleanup(undo)
	return undo
}

// TestResetCountsValuesAlreadyBack is the state a tune SIGKILLed between
// saving and pruning leaves: entries for IRQs whose write the kernel
// refused (they never changed). Such an entry already holds its saved
// value: it is restored, and Reset succeeds (it failed on every try). An
// IRQ that refuses and holds another value fails, and the failure names
// its own reason, not another file's change ("0 -> 0-3").
func TestResetCountsValuesAlreadyBack(t *testing.T) {
	files := bareMetal()
	files["proc/irq/1/smp_affinity_list"] = "0" // tuned, writable
	files["proc/irq/9/smp_affinity_list"] = "0" // tuned, refuses now
	root := fakeRoot(t, files)
	state := filepath.Join(root, "state.json")
	st := &State{Saved: time.Now().UTC(), Pid: 1, Entries: []Entry{
		{"irq", "proc/irq/9/smp_affinity_list", "0-3"},
		{"irq", "proc/irq/0/smp_affinity_list", "0-3"}, // refused by tune, never changed
		{"irq", "proc/irq/1/smp_affinity_list", "0-3"},
		{"aslr", "proc/sys/kernel/randomize_va_space", "2"}, // already back
	}}
	if err := saveState(state, st); err != nil {
		t.Fatal(err)
	}
	refuseWrites(t, filepath.Join(root, "proc/irq/0/smp_affinity_list"))
	undo9 := refuseWrites(t, filepath.Join(root, "proc/irq/9/smp_affinity_list"))

	rs, err := Reset(root, state)
	if err == nil || !strings.Contains(err.Error(), "/proc/irq/9/smp_affinity_list") || strings.Contains(err.Error(), "/proc/irq/0/") {
		t.Errorf("Reset: %v, want a failure naming IRQ 9 only", err)
	}
	got := map[string]Result{}
	for _, r := range rs {
		got[r.Name] = r
	}
	if r := got["irq"]; r.Status != StatusFailed || !strings.HasPrefix(r.Detail, "1 of 3 files not put back: ") || strings.Contains(r.Detail, "->") || !strings.Contains(r.Detail, "it holds 0") {
		t.Errorf("irq: %s, want 1 of 3 files failed with its own reason", r)
	}
	if r := got["aslr"]; r.Status != StatusRestored || r.Detail != "already held its saved value" {
		t.Errorf("aslr: %s, want restored, already held", r)
	}
	if v, _ := read(root, "proc/irq/1/smp_affinity_list"); v != "0-3" {
		t.Errorf("IRQ 1 = %q after reset, want 0-3", v)
	}
	left, _ := LoadState(state)
	if left == nil || len(left.Entries) != 1 || left.Entries[0].Path != "proc/irq/9/smp_affinity_list" {
		t.Fatalf("state after the failed reset: %+v, want IRQ 9 alone", left)
	}

	// IRQ 9 now holds its saved value (moved back by someone else, still
	// refusing writes): the next reset succeeds and removes the state.
	irq9 := filepath.Join(root, "proc/irq/9/smp_affinity_list")
	undo9()
	if err := os.WriteFile(irq9, []byte("0-3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refuseWrites(t, irq9)
	rs, err = Reset(root, state)
	if err != nil || len(rs) != 1 || rs[0].Status != StatusRestored || rs[0].Detail != "already held its saved value" {
		t.Errorf("second Reset: %v %v, want irq restored, already held", rs, err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("state left after every value is back: %v", err)
	}
}

// fsImmutableFL is FS_IMMUTABLE_FL of linux/fs.h.
const fsImmutableFL = 0x10

// TestBenchCPUs: --cpus against the online CPUs of a fake 4-CPU machine.
func TestBenchCPUs(t *testing.T) {
	root := fakeRoot(t, map[string]string{"sys/devices/system/cpu/online": "0-3"})
	if cpus, err := BenchCPUs(root, "1-3"); err != nil || !slices.Equal(cpus, []int{1, 2, 3}) {
		t.Errorf("1-3: %v %v", cpus, err)
	}
	for _, c := range []struct{ s, want string }{
		{"x", `--cpus: "x" is not accepted; accepted: a list of online CPUs such as 1-3,5`},
		{"", `--cpus: "" is not accepted; accepted: a list of online CPUs such as 1-3,5`},
		{"2,9", "--cpus: CPU 9 is not online; accepted: a list of online CPUs (0-3)"},
	} {
		if _, err := BenchCPUs(root, c.s); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.s, err, c.want)
		}
	}
}
