// Package env captures the environment fingerprint that every result file
// records and `contend env` prints: what kernel, machine and settings a
// measurement ran under, so that `contend compare` can list what differed.
package env

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend"
	"contend/internal/cpuset"
	"contend/internal/tune"
)

// Fingerprint is an ordered set of key/value facts about the machine.
type Fingerprint map[string]string

// Keys returns the keys of f in a stable, readable order.
func (f Fingerprint) Keys() []string {
	order := map[string]int{}
	for i, k := range keyOrder {
		order[k] = i
	}
	ks := make([]string, 0, len(f))
	for k := range f {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		oi, iok := order[ks[i]]
		oj, jok := order[ks[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return ks[i] < ks[j]
	})
	return ks
}

var keyOrder = []string{
	"hostname", "kernel.release", "kernel.version", "kernel.preempt", "kernel.cmdline", "kernel.boot_id",
	"kernel.tainted", "kernel.config_sha256",
	"cpu.model", "cpu.online", "cpu.possible", "cpu.affinity", "cpu.affinity_list", "cpu.governor", "smt", "virt",
	"vm.accel", "vm.timing", "vm.tcg", "vm.cpus", "vm.mem", "vm.qemu", "vm.host_cpu", "mem.total", "mem.available",
	"mem.page_reporting", "thp.enabled", "thp.defrag", "thp.use_zero_page", "zero_page",
	"kernel.sem", "kernel.threads-max", "ulimit.nproc", "loadavg",
	"tune.state", "tune.aslr", "tune.turbo", "tune.perf_rate", "tune.irq",
	"tracefs", "contend.version", "contend.native", "go.version", "cc.version", "cc.flags",
}

// Capture reads the fingerprint of this machine now. native holds what the
// C side of the binary says about its build (cc.version, cc.flags), which only a
// binary linking the C code can ask (cmd/contend's captureEnv does): env
// links no cgo, so that readers of result files (contend-plot) do not
// either. native may be nil.
func Capture(native Fingerprint) Fingerprint {
	f := Fingerprint{}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f["kernel.release"] = cstr(u.Release[:])
		f["kernel.version"] = cstr(u.Version[:])
		f["hostname"] = cstr(u.Nodename[:])
	}
	f["kernel.preempt"] = preemptModel(f["kernel.version"])
	f["kernel.cmdline"] = read("/proc/cmdline")
	f["kernel.boot_id"] = BootID()
	kernelFacts(f, os.Getenv("CONTEND_SYSROOT"))
	f["cpu.model"] = cpuModel()
	cpuFacts(f, tune.Root())
	if g := read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); g != "" {
		f["cpu.governor"] = g
	} else {
		f["cpu.governor"] = "none (no cpufreq)"
	}
	if s := read("/sys/devices/system/cpu/smt/active"); s != "" {
		f["smt"] = map[string]string{"0": "off", "1": "on"}[s]
	}
	f["virt"] = virt()
	mi := readMeminfo()
	f["mem.total"] = mi["MemTotal"]
	f["mem.available"] = mi["MemAvailable"]
	f["mem.page_reporting"] = tune.PageReporting(tune.Root())
	thpFingerprint(f, os.Getenv("CONTEND_SYSROOT"))
	if strings.Contains(f["kernel.cmdline"], "no_zero_page=1") {
		f["zero_page"] = "disabled on the kernel command line: read faults allocate real pages"
	} else {
		f["zero_page"] = "assumed available"
	}
	f["kernel.sem"] = strings.Join(strings.Fields(read("/proc/sys/kernel/sem")), " ")
	f["kernel.threads-max"] = read("/proc/sys/kernel/threads-max")
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &rl) == nil {
		if rl.Cur == unix.RLIM_INFINITY {
			f["ulimit.nproc"] = "unlimited"
		} else {
			f["ulimit.nproc"] = strconv.FormatUint(rl.Cur, 10)
		}
	}
	if la := strings.Fields(read("/proc/loadavg")); len(la) >= 3 {
		f["loadavg"] = strings.Join(la[:3], " ")
	}
	f["tracefs"] = tracefs()
	for k, v := range tune.Current(tune.Root()) {
		f[k] = v
	}
	f["contend.version"] = contend.FullVersion()
	f["contend.native"] = contend.NativeHash()
	f["go.version"] = runtime.Version()
	for k, v := range native {
		f[k] = v
	}
	for k, v := range vmFacts() {
		f[k] = v
	}
	for k, v := range Build() {
		f[k] = v
	}
	for k, v := range f {
		if v == "" {
			delete(f, k)
		}
	}
	return f
}

// cpuFacts records the CPUs three ways, which differ under taskset, a
// cpuset or CPU hotplug: cpu.online and cpu.possible count the machine's
// (sys/devices/system/cpu under root), cpu.affinity counts the CPUs this
// process may run on and cpu.affinity_list lists them (sched_getaffinity,
// inherited by the repetitions; runtime.NumCPU is this count, not the
// online CPUs).
func cpuFacts(f Fingerprint, root string) {
	if l, err := cpuset.Online(root); err == nil {
		f["cpu.online"] = strconv.Itoa(len(l))
	}
	if l, err := cpuset.Possible(root); err == nil {
		f["cpu.possible"] = strconv.Itoa(len(l))
	}
	if l, err := cpuset.Affinity(0); err == nil {
		f["cpu.affinity"] = strconv.Itoa(len(l))
		f["cpu.affinity_list"] = cpuset.Format(l)
	}
}

// Build returns how this binary was built, from debug.ReadBuildInfo: every
// build setting as "build.NAME" (build.tags, build.CGO_CFLAGS,
// build.CGO_ENABLED, build.GOARCH, build.compiler, build.vcs.revision,
// build.vcs.modified, build.vcs.time, ...; an empty value as "(empty)").
// Without VCS stamping (a git worktree, -buildvcs=false, a copy outside a
// checkout) build.vcs says so: the revision and dirty state are then
// unknown. CGO_CFLAGS is what was asked; cc.flags (bind.CCFlags) is what
// the C compiler did.
func Build() Fingerprint {
	f := Fingerprint{}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		f["build.info"] = "not available (binary built without module support)"
		return f
	}
	for _, s := range bi.Settings {
		v := s.Value
		if v == "" {
			v = "(empty)"
		}
		f["build."+strings.TrimPrefix(s.Key, "-")] = v
	}
	if f["build.vcs"] == "" {
		f["build.vcs"] = "not recorded (built outside a git checkout, in a git worktree, or with -buildvcs=false): revision and local changes unknown"
	}
	return f
}

// BuildKey reports whether key k of a fingerprint describes how contend
// was built (its sources, compilers and flags) rather than the machine:
// results whose build keys differ were measured by different programs.
func BuildKey(k string) bool {
	switch k {
	case "contend.version", "contend.native", "go.version", "cc.version", "cc.flags":
		return true
	}
	// vcs.time follows from vcs.revision and build.vcs from its presence.
	return strings.HasPrefix(k, "build.") && k != "build.vcs.time"
}

// Diff returns the keys whose values differ between a and b (or exist in
// one only), ignoring keys that change from run to run on one machine.
func Diff(a, b Fingerprint) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range []Fingerprint{a, b} {
		for _, k := range f.Keys() {
			if seen[k] || volatileKeys[k] {
				continue
			}
			seen[k] = true
			if a[k] != b[k] {
				out = append(out, k)
			}
		}
	}
	return out
}

// volatileKeys change between runs without meaning a different setup.
// A kernel's build time and the objects it rebuilt (internal/kbuild)
// depend on the build before it, not on the kernel.
var volatileKeys = map[string]bool{"mem.available": true, "loadavg": true, "kernel.boot_id": true,
	"kbuild.build_seconds": true, "kbuild.objects_rebuilt": true}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// thpFingerprint records the transparent huge page settings read under
// root ("" for /): each is "not built" on a kernel without THP (sysfs has
// /sys/kernel/mm but no transparent_hugepage in it).
func thpFingerprint(f Fingerprint, root string) {
	dir := filepath.Join(root, "/sys/kernel/mm/transparent_hugepage")
	if _, err := os.Stat(dir); err != nil {
		if _, err := os.Stat(filepath.Dir(dir)); err == nil {
			for _, k := range []string{"thp.enabled", "thp.defrag", "thp.use_zero_page"} {
				f[k] = "not built"
			}
		} else {
			f["thp.enabled"] = ""
		}
		return
	}
	f["thp.enabled"] = bracketed(read(filepath.Join(dir, "enabled")))
	f["thp.defrag"] = bracketed(read(filepath.Join(dir, "defrag")))
	f["thp.use_zero_page"] = read(filepath.Join(dir, "use_zero_page"))
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// bracketed returns the selected word of a sysfs choice list "a [b] c".
// A list whose words are all plain but one in parentheses, "a (b) c", has
// that one selected: Linux 6.1's /sys/kernel/debug/sched/preempt marks the
// running mode so ("none (voluntary) full"; later kernels use brackets).
func bracketed(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	sel, n := "", 0
	for _, w := range strings.Fields(s) {
		if len(w) > 2 && w[0] == '(' && w[len(w)-1] == ')' {
			sel, n = w[1:len(w)-1], n+1
		} else if strings.ContainsAny(w, "()") {
			return s
		}
	}
	if n == 1 {
		return sel
	}
	return s
}

func preemptModel(version string) string {
	model := ""
	for _, w := range []string{"PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"} {
		if strings.Contains(version, w) {
			model = w
			break
		}
	}
	if model == "" {
		model = "none (no PREEMPT in uname -v)"
	}
	if s := read("/sys/kernel/debug/sched/preempt"); s != "" {
		model += ", running as " + bracketed(s)
	} else if cfg := kernelConfig(); cfg != nil {
		for _, k := range []string{"CONFIG_PREEMPT_RT", "CONFIG_PREEMPT", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT_NONE"} {
			if cfg[k] == "y" {
				model += ", default " + strings.ToLower(strings.TrimPrefix(k, "CONFIG_PREEMPT_"))
				break
			}
		}
	}
	return model
}

// kernelFacts records under root ("" for /) the kernel's taint
// (/proc/sys/kernel/tainted, the number the kernel prints: 0 untainted)
// and the SHA-256 of its configuration: /boot/config-RELEASE, else
// /proc/config.gz decompressed (CONFIG_IKCONFIG_PROC), the .config
// either way, so that it matches kbuild.config_sha256 of a kernel contend
// built. Neither is recorded when it cannot be read.
func kernelFacts(f Fingerprint, root string) {
	f["kernel.tainted"] = read(filepath.Join(root, "/proc/sys/kernel/tainted"))
	var cfg []byte
	if rel := f["kernel.release"]; rel != "" && !strings.ContainsRune(rel, '/') {
		cfg, _ = os.ReadFile(filepath.Join(root, "/boot/config-"+rel))
	}
	if cfg == nil {
		cfg = configGz(filepath.Join(root, "/proc/config.gz"))
	}
	if cfg != nil {
		f["kernel.config_sha256"] = fmt.Sprintf("%x", sha256.Sum256(cfg))
	}
}

// configGz returns the decompressed content of the gzip file path
// (/proc/config.gz), nil when it cannot be read.
func configGz(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(z, 8<<20))
	if err != nil {
		return nil
	}
	return b
}

func kernelConfig() map[string]string {
	b := configGz("/proc/config.gz")
	if b == nil {
		return nil
	}
	cfg := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "CONFIG_PREEMPT") {
			cfg[k] = v
		}
	}
	return cfg
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// virt names the hypervisor from several sources: the cpuinfo flag, DMI,
// /sys/hypervisor, the kernel log's "Hypervisor detected" line (root only).
func virt() string {
	var found []string
	cpuinfo := read("/proc/cpuinfo")
	if strings.Contains(cpuinfo, " hypervisor") {
		found = append(found, "cpu flag hypervisor")
	}
	if t := read("/sys/hypervisor/type"); t != "" {
		found = append(found, t)
	}
	if p := read("/sys/class/dmi/id/product_name"); p != "" {
		found = append(found, "dmi "+p)
	}
	if out, ok := kernelLog(); ok {
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, "Hypervisor detected: "); i >= 0 {
				found = append(found, strings.TrimSpace(line[i+len("Hypervisor detected: "):]))
				break
			}
		}
	}
	if len(found) == 0 {
		return "none detected"
	}
	return strings.Join(found, "; ")
}

// kernelLog returns the kernel's log buffer, as dmesg prints it without
// its decoration, read with syslog(2) (root, or dmesg_restrict 0): an
// exec of dmesg cost 10-15 ms of every run, import and exec.
func kernelLog() (string, bool) {
	n, err := unix.Klogctl(unix.SYSLOG_ACTION_SIZE_BUFFER, nil)
	if err != nil || n <= 0 {
		return "", false
	}
	// READ_ALL fits what it returns in buf by leaving out the oldest
	// messages, the boot's that virt looks for, and the messages are
	// longer as text ("<6>[    0.000000] " before each line) than in the
	// ring of n bytes: a buffer of n lost the first lines of a ring nearly
	// full. The buffer grows until one message more would have fitted.
	const slack = 64 << 10 // more than the longest message as text
	for size := 2*n + slack; ; size *= 2 {
		buf := make([]byte, size)
		got, err := unix.Klogctl(unix.SYSLOG_ACTION_READ_ALL, buf)
		if err != nil {
			return "", false
		}
		if got <= size-slack || size >= 1<<28 {
			return string(buf[:got]), true
		}
	}
}

func tracefs() string {
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(d + "/events"); err == nil {
			return "mounted at " + d
		}
	}
	return "not mounted"
}

func readMeminfo() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(read("/proc/meminfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// Now is the time source of result files, replaceable in tests.
var Now = time.Now
