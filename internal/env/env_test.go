package env

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"contend/internal/cpuset"
	"contend/internal/testutil"
)

func TestCaptureHasTheFingerprint(t *testing.T) {
	f := Capture(Fingerprint{"cc.version": "cc 1.0"})
	if f["cc.version"] != "cc 1.0" {
		t.Errorf("cc.version = %q, want the native fact passed in", f["cc.version"])
	}
	for _, k := range []string{"kernel.release", "kernel.version", "kernel.preempt", "kernel.tainted", "cpu.online", "mem.total", "contend.version", "contend.native", "go.version", "cc.version", "tracefs", "virt", "cpu.governor"} {
		if f[k] == "" {
			t.Errorf("fingerprint lacks %s", k)
		}
	}
	keys := f.Keys()
	if keys[0] != "hostname" || len(keys) != len(f) {
		t.Errorf("keys not in the documented order: %v", keys)
	}
}

func TestDiffIgnoresVolatileKeys(t *testing.T) {
	a := Fingerprint{"kernel.release": "6.18", "loadavg": "0.1 0.1 0.1", "mem.available": "1 kB", "thp.enabled": "madvise"}
	b := Fingerprint{"kernel.release": "6.19", "loadavg": "3 3 3", "mem.available": "2 kB", "cpu.governor": "performance", "thp.enabled": "madvise"}
	got := strings.Join(Diff(a, b), " ")
	if got != "kernel.release cpu.governor" {
		t.Errorf("Diff = %q, want kernel.release and cpu.governor", got)
	}
}

func TestBracketedAndPreempt(t *testing.T) {
	if got := bracketed("always [madvise] never"); got != "madvise" {
		t.Errorf("bracketed = %q", got)
	}
	if got := bracketed("1"); got != "1" {
		t.Errorf("bracketed without brackets = %q", got)
	}
	// /sys/kernel/debug/sched/preempt: 6.1 marks the mode with
	// parentheses, later kernels with brackets.
	for in, want := range map[string]string{
		"none (voluntary) full":   "voluntary",
		"none voluntary [full]":   "full",
		"(none) voluntary full":   "none",
		"none voluntary full":     "none voluntary full",
		"a (b) (c)":               "a (b) (c)",
		"Intel(R) Xeon(R) (x) 42": "Intel(R) Xeon(R) (x) 42",
	} {
		if got := bracketed(in); got != want {
			t.Errorf("bracketed(%q) = %q, want %q", in, got, want)
		}
	}
	for v, want := range map[string]string{
		"#1 SMP PREEMPT_RT Thu":     "PREEMPT_RT",
		"#1 SMP PREEMPT_DYNAMIC @0": "PREEMPT_DYNAMIC",
		"#1 SMP PREEMPT Mon":        "PREEMPT",
		"#1 SMP Debian 6.1.0-13":    "none",
	} {
		if got := preemptModel(v); !strings.HasPrefix(got, want) {
			t.Errorf("preemptModel(%q) = %q, want prefix %q", v, got, want)
		}
	}
}

func TestDiagnose(t *testing.T) {
	f := Fingerprint{"cpu.governor": "powersave", "cpu.online": "2", "loadavg": "3.00 1 1", "virt": "KVM", "smt": "on", "thp.enabled": "always"}
	got := strings.Join(Diagnose(f, 8, true), "\n")
	for _, want := range []string{"governor is powersave", "load average 3.00 on 2 CPUs", "virtual machine", "SMT is on", "'always'", "8 threads on 2 online CPUs"} {
		if !strings.Contains(got, want) {
			t.Errorf("Diagnose lacks %q:\n%s", want, got)
		}
	}
	// One CPU: said in the singular ("on 1 CPUs" was).
	f["cpu.online"] = "1"
	got = strings.Join(Diagnose(f, 8, true), "\n")
	for _, want := range []string{"load average 3.00 on 1 CPU:", "8 threads on 1 online CPU:"} {
		if !strings.Contains(got, want) {
			t.Errorf("Diagnose on one CPU lacks %q:\n%s", want, got)
		}
	}
	quiet := Fingerprint{"cpu.governor": "performance", "cpu.online": "64", "loadavg": "0.00 0 0", "virt": "none detected", "smt": "off", "thp.enabled": "madvise"}
	for _, w := range Diagnose(quiet, 8, true) {
		if !strings.Contains(w, "runnable") { // other tests may be running
			t.Errorf("a quiet machine got the warning %q", w)
		}
	}
}

// TestCCFlagsFollowTheCompiler compiles native/ccflags.c at several
// optimisation levels: cc.flags must name the level the compiler used.
func TestCCFlagsFollowTheCompiler(t *testing.T) {
	src := `#include <stdio.h>
#include "../../native/ccflags.c"
int main(void) { puts(ct_cc_flags()); return 0; }
`
	dir, _ := os.Getwd()
	for flags, want := range map[string]string{
		"-O0":             "-O0 (not optimised), no inlining;",
		"-Os":             "-Os",
		"-O2":             "-O1 or higher;",
		"-O2 -fno-inline": "-O1 or higher, no inlining;",
		"-O3 -ffast-math": "-O1 or higher, -ffast-math;",
	} {
		args := append(strings.Fields(flags), "-I"+filepath.Join(dir, "../../native"))
		bin := testutil.BuildC(t, strings.Replace(src, "../../native/ccflags.c", filepath.Join(dir, "../../native/ccflags.c"), 1), args...)
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), want) {
			t.Errorf("%s: cc.flags %q, want prefix %q", flags, out, want)
		}
	}
}

// TestBuildRecordsSettings: the build settings of this (test) binary are
// in the fingerprint, and a missing VCS stamp is said, not left out.
func TestBuildRecordsSettings(t *testing.T) {
	f := Capture(nil)
	for _, k := range []string{"build.CGO_ENABLED", "build.GOARCH", "build.vcs"} {
		if f[k] == "" {
			t.Errorf("fingerprint lacks %s: %v", k, f)
		}
	}
	for k, want := range map[string]bool{"build.CGO_CFLAGS": true, "cc.flags": true, "go.version": true, "build.vcs.time": false, "kernel.release": false} {
		if BuildKey(k) != want {
			t.Errorf("BuildKey(%s) = %v", k, !want)
		}
	}
}

// TestKernelLogAsDmesg: the kernel log read with syslog(2) holds what
// dmesg prints (virt looks there for "Hypervisor detected"); it was read
// by an exec of dmesg.
func TestKernelLogAsDmesg(t *testing.T) {
	log, ok := kernelLog()
	out, err := exec.Command("dmesg").Output()
	if !ok || err != nil {
		t.Skipf("the kernel log is not readable here: syslog %v, dmesg %v", ok, err)
	}
	// The first message: "<6>[    0.000000] Linux version ..." in the
	// buffer, "[    0.000000] Linux version ..." from dmesg.
	first, _, _ := strings.Cut(log, "\n")
	if i := strings.Index(first, "]"); i < 0 || !strings.Contains(string(out), strings.TrimSpace(first[i+1:])) {
		t.Errorf("first line of the kernel log %q not in dmesg's output", first)
	}
	// And the other way: dmesg's oldest message (read after the log, so
	// it was there when the log was read) is in the log. syslog(2) fits
	// what it returns in the buffer by leaving out the oldest messages,
	// where virt's line is; a buffer of the ring's size lost the first
	// lines of a ring nearly full.
	oldest, _, _ := strings.Cut(string(out), "\n")
	if stamp, _, ok := strings.Cut(oldest, "]"); ok && !strings.Contains(log, stamp+"]") {
		t.Errorf("dmesg's oldest message %q is not in the kernel log read (%d bytes, from %q)", oldest, len(log), first)
	}
}

// TestTHPFingerprint: a kernel without THP (sysfs without
// transparent_hugepage) is recorded as thp.enabled "not built", one with
// it by its selected words; no sysfs at all says nothing.
func TestTHPFingerprint(t *testing.T) {
	root := t.TempDir()
	f := Fingerprint{}
	thpFingerprint(f, root)
	if f["thp.enabled"] != "" {
		t.Errorf("no sysfs: thp.enabled %q, want empty", f["thp.enabled"])
	}
	mm := filepath.Join(root, "sys/kernel/mm")
	os.MkdirAll(mm, 0o755)
	thpFingerprint(f, root)
	if f["thp.enabled"] != "not built" || f["thp.use_zero_page"] != "not built" {
		t.Errorf("no THP: %v, want \"not built\"", f)
	}
	os.MkdirAll(filepath.Join(mm, "transparent_hugepage"), 0o755)
	os.WriteFile(filepath.Join(mm, "transparent_hugepage/enabled"), []byte("[always] madvise never\n"), 0o644)
	os.WriteFile(filepath.Join(mm, "transparent_hugepage/use_zero_page"), []byte("1\n"), 0o644)
	f = Fingerprint{}
	thpFingerprint(f, root)
	if f["thp.enabled"] != "always" || f["thp.use_zero_page"] != "1" {
		t.Errorf("THP: %v", f)
	}
}

// TestDiagnoseOversubscribedByAffinity: the threads spread over the CPUs
// the run may use, not the machine's online CPUs; the load is per online
// CPU.
func TestDiagnoseOversubscribedByAffinity(t *testing.T) {
	f := Fingerprint{"cpu.online": "4", "cpu.affinity": "1", "cpu.affinity_list": "0", "loadavg": "3.00 1 1"}
	got := strings.Join(Diagnose(f, 2, true), "\n")
	for _, want := range []string{"2 threads on 1 CPU this run may use (affinity 0 of 4 online): the run is oversubscribed", "load average 3.00 on 4 CPUs"} {
		if !strings.Contains(got, want) {
			t.Errorf("Diagnose under an affinity of 1 CPU lacks %q:\n%s", want, got)
		}
	}
	f["cpu.affinity"], f["cpu.affinity_list"] = "4", "0-3"
	if got := strings.Join(Diagnose(f, 4, true), "\n"); strings.Contains(got, "oversubscribed") {
		t.Errorf("4 threads on 4 allowed CPUs warned: %s", got)
	}
	if got := strings.Join(Diagnose(f, 5, true), "\n"); !strings.Contains(got, "5 threads on 4 online CPUs:") {
		t.Errorf("5 threads on 4 CPUs, all allowed: %s", got)
	}
}

// TestCPUFactsFromSysfs reads the online and possible CPUs of a fake
// machine (CONTEND_SYSROOT's tree).
func TestCPUFactsFromSysfs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys/devices/system/cpu")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "online"), []byte("0-3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "possible"), []byte("0-2047\n"), 0o644)
	f := Fingerprint{}
	cpuFacts(f, root)
	if f["cpu.online"] != "4" || f["cpu.possible"] != "2048" || f["cpu.affinity"] == "" || f["cpu.affinity_list"] == "" {
		t.Errorf("cpu facts %v, want online 4, possible 2048 and the affinity", f)
	}
}

// TestCPUFactsUnderTaskset captures the fingerprint in a child restricted
// to one CPU (taskset -c): cpu.online stays the machine's online CPUs
// (runtime.NumCPU, which it was, is the affinity's count), cpu.affinity
// and cpu.affinity_list say the one CPU.
func TestCPUFactsUnderTaskset(t *testing.T) {
	if os.Getenv("CONTEND_TEST_CPU_FACTS") == "1" {
		f := Capture(nil)
		os.Stdout.WriteString(f["cpu.online"] + " " + f["cpu.possible"] + " " + f["cpu.affinity"] + " " + f["cpu.affinity_list"] + "\n")
		return
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("no taskset")
	}
	allowed, err1 := cpuset.Affinity(0)
	online, err2 := cpuset.Online("/")
	possible, err3 := cpuset.Possible("/")
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("CPUs unreadable:", err1, err2, err3)
	}
	one := strconv.Itoa(allowed[0])
	cmd := exec.Command(taskset, "-c", one, os.Args[0], "-test.run=^TestCPUFactsUnderTaskset$")
	cmd.Env = append(os.Environ(), "CONTEND_TEST_CPU_FACTS=1", "CONTEND_SYSROOT=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("taskset -c %s: %v", one, err)
	}
	got := strings.Fields(string(out))
	want := []string{strconv.Itoa(len(online)), strconv.Itoa(len(possible)), "1", one}
	if len(got) < 4 || !slices.Equal(got[:4], want) {
		t.Errorf("under taskset -c %s: cpu.online, cpu.possible, cpu.affinity, cpu.affinity_list = %q, want %q", one, got, want)
	}
}

// TestKernelFacts: the taint as the kernel prints it, and the SHA-256 of
// the kernel's .config, from /boot/config-RELEASE, else /proc/config.gz
// decompressed; nothing when neither can be read.
func TestKernelFacts(t *testing.T) {
	root := t.TempDir()
	cfg := []byte("CONFIG_SMP=y\nCONFIG_PREEMPT_NONE=y\n")
	sum := sha256.Sum256(cfg)
	hash := hex.EncodeToString(sum[:])
	os.MkdirAll(filepath.Join(root, "proc/sys/kernel"), 0o755)
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/tainted"), []byte("4609\n"), 0o644)
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(cfg)
	z.Close()
	os.WriteFile(filepath.Join(root, "proc/config.gz"), gz.Bytes(), 0o444)
	f := Fingerprint{"kernel.release": "6.1.0"}
	kernelFacts(f, root)
	if f["kernel.tainted"] != "4609" || f["kernel.config_sha256"] != hash {
		t.Errorf("from /proc/config.gz: %v, want tainted 4609 and config %s", f, hash)
	}
	os.MkdirAll(filepath.Join(root, "boot"), 0o755)
	os.WriteFile(filepath.Join(root, "boot/config-6.1.0"), []byte("CONFIG_SMP=n\n"), 0o644)
	kernelFacts(f, root)
	if sum := sha256.Sum256([]byte("CONFIG_SMP=n\n")); f["kernel.config_sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("/boot/config-6.1.0 not preferred: %v", f)
	}
	f = Fingerprint{"kernel.release": "6.1.0"}
	kernelFacts(f, t.TempDir())
	if _, ok := f["kernel.config_sha256"]; ok || f["kernel.tainted"] != "" {
		t.Errorf("nothing readable: %v", f)
	}
}
