package vm

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCPIORoundTrip(t *testing.T) {
	var b bytes.Buffer
	c := NewCPIOWriter(&b)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Dir("bin", 0o755))
	must(c.File("bin/contend", 0o755, []byte("a binary of odd length")))
	must(c.Symlink("init", "bin/contend"))
	must(c.Node("dev/console", 0o020600, 5, 1))
	if err := c.File("bin/contend", 0o644, nil); err == nil {
		t.Error("a second bin/contend was accepted")
	}
	must(c.Close())
	if b.Len()%4 != 0 {
		t.Errorf("archive of %d bytes, not a multiple of 4", b.Len())
	}
	// A second archive appended, as the job is, with a file of the host.
	host := filepath.Join(t.TempDir(), "t.c")
	must(os.WriteFile(host, []byte("void testcase(void) {}"), 0o640))
	must(writeJob(&b, []byte(`{"args":["run"]}`), []File{{Host: host, Guest: "/contend-wis/t.c"}}))
	got, err := ReadCPIO(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := []CPIOEntry{
		{Name: "bin", Mode: modeDir | 0o755, Data: []byte{}},
		{Name: "bin/contend", Mode: modeFile | 0o755, Data: []byte("a binary of odd length")},
		{Name: "init", Mode: modeLink | 0o777, Data: []byte("bin/contend")},
		{Name: "dev/console", Mode: 0o020600, Data: []byte{}, RMajor: 5, RMinor: 1},
		{Name: jobFile, Mode: modeFile | 0o600, Data: []byte(`{"args":["run"]}`)},
		{Name: "contend-wis", Mode: modeDir | 0o755, Data: []byte{}},
		{Name: "contend-wis/t.c", Mode: modeFile | 0o640, Data: []byte("void testcase(void) {}")},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries read back, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Mode != want[i].Mode || !bytes.Equal(got[i].Data, want[i].Data) || got[i].RMajor != want[i].RMajor || got[i].RMinor != want[i].RMinor {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The system's cpio, when there is one, reads it too.
	if _, err := exec.LookPath("cpio"); err == nil {
		var a bytes.Buffer
		c := NewCPIOWriter(&a)
		c.File("x/y", 0o644, []byte("z"))
		c.Close()
		cmd := exec.Command("cpio", "-t", "--quiet")
		cmd.Stdin = &a
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != "x/y" {
			t.Errorf("cpio -t: %q, %v", out, err)
		}
	}
}

// TestCheckGuestPath checks the paths a file may take in the guest: not
// relative or unclean, not in what the guest's init mounts or owns.
func TestCheckGuestPath(t *testing.T) {
	for _, p := range []string{"/contend-wis/futex4.c", "/root/x", "/opt/a/b"} {
		if err := CheckGuestPath(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"", "/", "x/y", "/a/../b", "/a/", "/proc/x", "/tmp/t.c", "/init", GuestBinary, "/" + jobFile, "/lib/x86_64-linux-gnu/libc.so.6", "/dev"} {
		if err := CheckGuestPath(p); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	var b bytes.Buffer
	if err := writeJob(&b, []byte("{}"), []File{{Host: "/nonexistent", Guest: "/proc/x"}}); err == nil || !strings.Contains(err.Error(), "the guest's own") {
		t.Errorf("a file for /proc: %v", err)
	}
}

func TestReadCPIORefusesDamage(t *testing.T) {
	var b bytes.Buffer
	c := NewCPIOWriter(&b)
	c.File("f", 0o644, []byte("data"))
	c.Close()
	bad := slices.Clone(b.Bytes())
	bad[0] = '1'
	if _, err := ReadCPIO(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("a broken magic: %v", err)
	}
	if _, err := ReadCPIO(bytes.NewReader(b.Bytes()[:120])); err == nil {
		t.Error("an archive cut short was read")
	}
}

// TestWriteInitramfs: the archive holds the binary, /init linking to it,
// and every library ldd names, at the path ldd gives.
func TestWriteInitramfs(t *testing.T) {
	exe := "/bin/ls"
	out, err := exec.Command("ldd", exe).Output()
	if err != nil {
		t.Skipf("ldd %s: %v", exe, err)
	}
	var b bytes.Buffer
	libs, err := WriteInitramfs(&b, exe)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := ReadCPIO(&b)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]CPIOEntry{}
	for _, e := range ents {
		have["/"+e.Name] = e
	}
	self, _ := os.ReadFile(exe)
	if e, ok := have[GuestBinary]; !ok || !bytes.Equal(e.Data, self) || e.Mode != modeFile|0o755 {
		t.Errorf("%s: not the binary (%v)", GuestBinary, ok)
	}
	if e := have["/init"]; e.Mode&0o170000 != modeLink || string(e.Data) != strings.TrimPrefix(GuestBinary, "/") {
		t.Errorf("/init: %+v", e)
	}
	if e := have["/dev/console"]; e.RMajor != 5 || e.RMinor != 1 {
		t.Errorf("/dev/console: %+v", e)
	}
	for _, d := range []string{"/proc", "/sys", "/dev", "/tmp", "/run"} {
		if e, ok := have[d]; !ok || e.Mode&0o170000 != modeDir {
			t.Errorf("no directory %s", d)
		}
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		var p string
		switch {
		case len(f) >= 3 && f[1] == "=>" && strings.HasPrefix(f[2], "/"):
			p = f[2]
		case len(f) >= 1 && strings.HasPrefix(f[0], "/"):
			p = f[0]
		default:
			continue
		}
		n++
		want, _ := os.ReadFile(p)
		e, ok := have[p]
		if !ok {
			// ldd may name a library by another path (a /lib link
			// into /usr/lib): the same file must be there.
			for _, l := range libs {
				if r1, _ := filepath.EvalSymlinks(l); r1 != "" {
					if r2, _ := filepath.EvalSymlinks(p); r1 == r2 {
						e, ok = have[l], true
					}
				}
			}
		}
		if !ok || !bytes.Equal(e.Data, want) {
			t.Errorf("ldd names %s: not in the archive (libraries: %v)", p, libs)
		}
	}
	if n == 0 {
		t.Fatalf("ldd named no library: %s", out)
	}
	// glibc's dlopen'ed libgcc_s (pthread_cancel), where this machine has it.
	if len(dlopened(nil)) > 0 {
		found := false
		for name, e := range have {
			found = found || strings.HasSuffix(name, "/libgcc_s.so.1") && e.Mode&0o170000 == modeFile
		}
		if !found {
			t.Errorf("libgcc_s.so.1 (dlopen'ed by glibc) is not in the archive: %v", libs)
		}
	}
}

func TestFrames(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("noise before\r\n")
	big := bytes.Repeat([]byte("0123456789\x00\xff"), 1000)
	WriteFrame(&b, "result", big)
	WriteFrame(&b, "report", []byte(`{"exit":0}`))
	WriteFrame(&b, "empty", nil)
	// A tty's CR LF.
	crlf := bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\r\n"))
	got, err := ReadFrames(bytes.NewReader(crlf))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got["result"], big) || string(got["report"]) != `{"exit":0}` || got["empty"] == nil || len(got["empty"]) != 0 {
		t.Errorf("frames read back: %d names, result %d bytes", len(got), len(got["result"]))
	}
	if err := WriteFrame(&b, "two words", nil); err == nil {
		t.Error("a frame name with a space was accepted")
	}
}

func TestFramesCorrupted(t *testing.T) {
	var good bytes.Buffer
	WriteFrame(&good, "report", []byte(`{"exit":0}`))
	data := bytes.Repeat([]byte("contend "), 40)
	var b bytes.Buffer
	WriteFrame(&b, "result", data)
	frame := b.Bytes()
	body := bytes.IndexByte(frame, '\n') + 5

	flip := slices.Clone(frame)
	if flip[body] == 'A' {
		flip[body] = 'B'
	} else {
		flip[body] = 'A'
	}
	lost := append(slices.Clone(frame[:body]), frame[body+4:]...) // 4 base64 characters lost: 3 bytes
	cut := slices.Clone(frame[:len(frame)-20])
	header := bytes.Replace(slices.Clone(frame), []byte(" 320 "), []byte(" 3x0 "), 1)
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"one character changed", flip, "SHA-256"},
		{"characters lost", lost, "bytes, but its header says 320"},
		{"no end", cut, "cut short"},
		{"a bad length", header, "length"},
		{"a frame in a frame", append(slices.Clone(frame[:body+10]), append([]byte("\n"), good.Bytes()...)...), "cut short"},
	} {
		in := append(slices.Clone(good.Bytes()), c.in...)
		got, err := ReadFrames(bytes.NewReader(in))
		var fe *FrameError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want a one-line FrameError with %q", c.name, err, c.want)
		}
		if string(got["report"]) != `{"exit":0}` {
			t.Errorf("%s: the good frame before it is lost: %v", c.name, got)
		}
	}
}

// fakeBzImage writes a file with an x86 boot header naming version v.
func fakeBzImage(t *testing.T, dir, v string) string {
	t.Helper()
	b := make([]byte, 0x1000)
	copy(b[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(b[0x20e:], 0x300)
	copy(b[0x500:], v+"\x00")
	p := filepath.Join(dir, "bzImage-"+strings.Fields(v)[0])
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKernelVersion(t *testing.T) {
	dir := t.TempDir()
	p := fakeBzImage(t, dir, "6.1.0-57-rt-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_RT Debian 6.1.192-3")
	if r, err := KernelRelease(p); err != nil || r != "6.1.0-57-rt-amd64" {
		t.Errorf("release %q, %v", r, err)
	}
	notImage := filepath.Join(dir, "vmlinux")
	os.WriteFile(notImage, []byte("\x7fELF not a bzImage, long enough? no"), 0o644)
	if _, err := KernelRelease(notImage); err == nil || !strings.Contains(err.Error(), "not an x86 kernel image") {
		t.Errorf("an ELF file: %v", err)
	}
}

// fakeQEMU is a qemu-system-x86_64 stand-in, a shell script: -version
// prints $FAKE_VERSION; a guest behaves as $FAKE_MODE says ($FAKE_KVM
// under -accel kvm): ok (the banner on the console, $FAKE_FRAMES on the
// port), hang (nothing, sleeps), bannerhang (the banner, sleeps), panic,
// silent (nothing, exits 0), died (the banner and $FAKE_FRAMES, then exit
// 1). Each guest's pid goes into $FAKE_PIDS, its accelerator after it.
const fakeQEMU = `#!/bin/sh
if [ "$1" = -version ]; then echo "QEMU emulator version ${FAKE_VERSION:-7.2.0} (fake)"; exit 0; fi
accel= console= port= n=0
while [ $# -gt 0 ]; do
	case $1 in
	-accel) accel=$2; shift ;;
	-serial) n=$((n+1)); f=${2#file:}; if [ $n = 1 ]; then console=$f; else port=$f; fi; shift ;;
	esac
	shift
done
echo "$$ $accel" >> "$FAKE_PIDS"
mode=$FAKE_MODE
case $accel in kvm*) mode=${FAKE_KVM:-$mode} ;; esac
case $mode in
hang) exec sleep 600 ;;
bannerhang) echo "[    0.000000] Linux version 6.1.0-fake (fake) #1" > "$console"; exec sleep 600 ;;
ok) echo "[    0.000000] Linux version 6.1.0-fake (fake) #1" > "$console"; cat "$FAKE_FRAMES" > "$port" ;;
panic) printf '[    0.000000] Linux version 6.1.0-fake (fake) #1\n[    1.0] Kernel panic - not syncing: No working init found.  Try passing init= option to kernel.\n' > "$console" ;;
silent) : ;;
died) echo "[    0.000000] Linux version 6.1.0-fake (fake) #1" > "$console"; cat "$FAKE_FRAMES" > "$port"; exit 1 ;;
esac
`

// fake sets up the fake QEMU and returns its path, the pid file and a
// kernel image.
func fake(t *testing.T, mode, kvm string, frames []byte) (qemu, pids, kernel string) {
	t.Helper()
	dir := t.TempDir()
	qemu = filepath.Join(dir, "qemu-system-x86_64")
	if err := os.WriteFile(qemu, []byte(fakeQEMU), 0o755); err != nil {
		t.Fatal(err)
	}
	pids = filepath.Join(dir, "pids")
	fr := filepath.Join(dir, "frames")
	os.WriteFile(fr, frames, 0o644)
	t.Setenv("FAKE_MODE", mode)
	t.Setenv("FAKE_KVM", kvm)
	t.Setenv("FAKE_FRAMES", fr)
	t.Setenv("FAKE_PIDS", pids)
	return qemu, pids, fakeBzImage(t, dir, "6.1.0-fake (fake) #1")
}

// guestFrames returns what a guest that ran its command sends.
func guestFrames(t *testing.T, withReport bool) []byte {
	var b bytes.Buffer
	WriteFrame(&b, frameStarted, []byte("boot-id-1"))
	if withReport {
		rep, _ := json.Marshal(Report{Release: "6.1.0-fake", BootID: "boot-id-1", Exit: 0})
		WriteFrame(&b, frameResult, []byte(`{"a result":1}`))
		WriteFrame(&b, frameReport, rep)
	}
	return b.Bytes()
}

// kvmDevice returns a file that opens read-write, standing in for
// /dev/kvm.
func kvmDevice(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "kvm")
	os.WriteFile(p, nil, 0o600)
	return p
}

// pidsOf returns the guests the fake QEMU started: pid and accelerator.
func pidsOf(t *testing.T, path string) [][2]string {
	b, _ := os.ReadFile(path)
	var out [][2]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

// alive reports whether process pid exists (and is not a zombie).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func TestAccelFallsBackToTCGOnKVMHang(t *testing.T) {
	qemu, pids, kernel := fake(t, "ok", "hang", guestFrames(t, true))
	var log bytes.Buffer
	r, err := NewRunner(context.Background(), Config{QEMU: qemu, Contend: "/bin/true", KVMDevice: kvmDevice(t), KVMProbe: 500 * time.Millisecond, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 2; i++ {
		res, err := r.Boot(context.Background(), Guest{Kernel: kernel, Timeout: time.Minute}, Command{Args: []string{"run"}, Out: GuestOut})
		if err != nil {
			t.Fatal(err)
		}
		if res.Accel != AccelTCG || res.Report.BootID != "boot-id-1" || string(res.Output) != `{"a result":1}` || res.Env()["vm.accel"] != "tcg" || res.Env()["vm.timing"] == "" {
			t.Errorf("boot %d: accel %s, report %+v, output %q, env %v", i, res.Accel, res.Report, res.Output, res.Env())
		}
	}
	if n := strings.Count(log.String(), "accelerator"); n != 1 || !strings.Contains(log.String(), "TCG") || !strings.Contains(log.String(), "no kernel banner within 500ms") {
		t.Errorf("said %d times: %q", n, log.String())
	}
	ps := pidsOf(t, pids)
	if len(ps) != 3 || !strings.HasPrefix(ps[0][1], "kvm") || !strings.HasPrefix(ps[1][1], "tcg") || !strings.HasPrefix(ps[2][1], "tcg") {
		t.Errorf("guests started: %v, want one KVM probe then two TCG", ps)
	}
	if len(ps) > 0 && alive(ps[0][0]) {
		t.Errorf("the hanging KVM guest %s is still alive", ps[0][0])
	}
}

func TestAccelChoice(t *testing.T) {
	for _, c := range []struct {
		name, kvm, device, accel string
		want                     string
		guests                   int
	}{
		{"KVM boots", "ok", "dev", AccelAuto, AccelKVM, 1},
		{"KVM fails at once", "silent", "dev", AccelAuto, AccelTCG, 2},
		{"no /dev/kvm", "ok", "", AccelAuto, AccelTCG, 1},
		{"tcg asked", "ok", "dev", AccelTCG, AccelTCG, 1},
		{"kvm asked", "ok", "", AccelKVM, AccelKVM, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			qemu, pids, kernel := fake(t, "ok", c.kvm, guestFrames(t, true))
			dev := filepath.Join(t.TempDir(), "no-kvm")
			if c.device != "" {
				dev = kvmDevice(t)
			}
			var log bytes.Buffer
			r, err := NewRunner(context.Background(), Config{QEMU: qemu, Contend: "/bin/true", KVMDevice: dev, KVMProbe: 2 * time.Second, Accel: c.accel, Log: &log})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			res, err := r.Boot(context.Background(), Guest{Kernel: kernel}, Command{Args: []string{"run"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Accel != c.want || r.Accel() != c.want || len(pidsOf(t, pids)) != c.guests {
				t.Errorf("accel %s (runner %s), %d guests; want %s, %d (log %q)", res.Accel, r.Accel(), len(pidsOf(t, pids)), c.want, c.guests, log.String())
			}
		})
	}
}

func TestBootFaults(t *testing.T) {
	for _, c := range []struct {
		mode, kind, want string
		frames           []byte
		timeout          time.Duration
	}{
		{"panic", FaultPanic, "the guest's kernel panicked: Kernel panic - not syncing: No working init found.", nil, time.Minute},
		{"silent", FaultConsole, "wrote nothing to the serial console ttyS0", nil, time.Minute},
		{"died", FaultDied, "the guest died during the command", guestFrames(t, false), time.Minute},
		{"ok", FaultNoReport, "contend's init sent nothing over ttyS1", nil, time.Minute},
		{"bannerhang", FaultTimeout, "the guest did not end within 1s (before the command started", nil, time.Second},
		{"ok", FaultTransfer, "its SHA-256 is not the one", bytes.Replace(guestFrames(t, true), []byte("eyJh"), []byte("eyJi"), 1), time.Minute},
	} {
		t.Run(c.kind, func(t *testing.T) {
			qemu, pids, kernel := fake(t, c.mode, "", c.frames)
			r, err := NewRunner(context.Background(), Config{QEMU: qemu, Contend: "/bin/true", Accel: AccelTCG})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = r.Boot(context.Background(), Guest{Kernel: kernel, Timeout: c.timeout, Dir: t.TempDir()}, Command{Args: []string{"run"}, Out: GuestOut})
			var f *Fault
			if !errors.As(err, &f) || f.Kind != c.kind || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v (%T), want a one-line %s fault with %q", err, err, c.kind, c.want)
			}
			for _, p := range pidsOf(t, pids) {
				if alive(p[0]) {
					t.Errorf("QEMU %s outlived its boot", p[0])
				}
			}
		})
	}
}

func TestQEMUMissingOrOld(t *testing.T) {
	qemu, _, _ := fake(t, "ok", "", nil)
	t.Setenv("FAKE_VERSION", "4.1.0")
	_, err := NewRunner(context.Background(), Config{QEMU: qemu, Contend: "/bin/true"})
	var f *Fault
	if !errors.As(err, &f) || f.Kind != FaultQEMU || !strings.Contains(err.Error(), "too old: version 4.1.0; 4.2 or newer") {
		t.Errorf("QEMU 4.1: %v", err)
	}
	_, err = NewRunner(context.Background(), Config{QEMU: filepath.Join(t.TempDir(), "no-qemu"), Contend: "/bin/true"})
	if !errors.As(err, &f) || f.Kind != FaultQEMU || !strings.Contains(err.Error(), "QEMU is missing") {
		t.Errorf("no QEMU: %v", err)
	}
}

func TestPayloadGzipAndNoPVH(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("a kernel"))
	zw.Close()
	img := make([]byte, 0x1000)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x206:], 0x20f)
	img[0x1f1] = 2                                    // setup sectors: the payload's offset is from byte 3*512
	binary.LittleEndian.PutUint32(img[0x248:], 0x100) // payload_offset
	binary.LittleEndian.PutUint32(img[0x24c:], uint32(z.Len()))
	copy(img[3*512+0x100:], z.Bytes())
	p, err := payload(img)
	if err != nil {
		t.Fatal(err)
	}
	k, err := decompress(p)
	if err != nil || string(k) != "a kernel" {
		t.Errorf("decompressed %q, %v", k, err)
	}
	if _, err := decompress([]byte("??????")); err == nil || !strings.Contains(err.Error(), "unknown compression") {
		t.Errorf("no magic: %v", err)
	}
	if hasPVH("/bin/true") {
		t.Error("/bin/true has a PVH entry")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bzImage")
	os.WriteFile(path, img, 0o644)
	if _, err := pvhKernel(path, dir); err == nil || !strings.Contains(err.Error(), "no PVH entry") {
		t.Errorf("a kernel without PVH: %v", err)
	}
}

// TestProgramFiles: a dynamic program goes into the guest with each of
// its libraries once, in the directory given, never the interpreter (the
// guest's own), with a library path that looks there after the guest's
// own directories; a library
// directory the guest's init owns is refused.
func TestProgramFiles(t *testing.T) {
	prog := "/bin/sh"
	libs, err := Libraries(prog)
	if err != nil || len(libs) == 0 {
		t.Skipf("%s is not a dynamic program here: %v", prog, err)
	}
	files, env, err := ProgramFiles(prog, "/tools/sh", "/tools/lib")
	if err != nil {
		t.Fatal(err)
	}
	if files[0] != (File{Host: prog, Guest: "/tools/sh"}) {
		t.Errorf("first file %+v, want the program", files[0])
	}
	seen := map[string]bool{}
	for _, f := range files[1:] {
		if filepath.Dir(f.Guest) != "/tools/lib" || seen[f.Guest] || strings.HasPrefix(filepath.Base(f.Guest), "ld-linux") {
			t.Errorf("library %+v: want one of each in /tools/lib, no interpreter", f)
		}
		seen[f.Guest] = true
	}
	if len(files) < 2 || !strings.HasPrefix(env, "LD_LIBRARY_PATH="+strings.Join(libDirs, ":")) || !strings.HasSuffix(env, ":/tools/lib") {
		t.Errorf("%d files, env %q", len(files), env)
	}
	if _, _, err := ProgramFiles(prog, "/tools/sh", "/usr/lib"); err == nil {
		t.Errorf("libraries in /usr/lib (the guest's own) accepted")
	}
}

// TestTCGThreadMode: a guest with more vCPUs than the host has CPUs
// runs single-threaded under TCG (a spinning vCPU's PAUSE then passes
// the turn to the lock holder), one that fits multi-threaded; the mode
// is in QEMU's -accel and in the result's vm.tcg.
func TestTCGThreadMode(t *testing.T) {
	for _, c := range []struct {
		cpus, host int
		want       string
	}{{2, 2, TCGMulti}, {1, 2, TCGMulti}, {3, 2, TCGSingle}, {64, 2, TCGSingle}, {64, 64, TCGMulti}} {
		qemu, pids, kernel := fake(t, "ok", "", guestFrames(t, true))
		r, err := NewRunner(context.Background(), Config{QEMU: qemu, Contend: "/bin/true", Accel: AccelTCG, HostCPUs: c.host})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Boot(context.Background(), Guest{Kernel: kernel, CPUs: c.cpus, Timeout: time.Minute}, Command{Args: []string{"run"}, Out: GuestOut})
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		ps := pidsOf(t, pids)
		if len(ps) != 1 || ps[0][1] != "tcg,thread="+c.want || res.TCG != c.want || res.Env()["vm.tcg"] != c.want {
			t.Errorf("%d vCPUs on %d CPUs: QEMU started %v, result's mode %q, vm.tcg %q; want thread=%s", c.cpus, c.host, ps, res.TCG, res.Env()["vm.tcg"], c.want)
		}
	}
}
