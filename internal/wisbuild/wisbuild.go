// Package wisbuild compiles will-it-scale tests for contend's wis workload:
// the test file as it is, with native/wis_shim.c (embedded in contend),
// into a shared object that native/wis.c loads in each repetition's child.
//
// The parent compiles once per test content (Build, from the workload's
// Check) into a private temporary directory (mode 0700, internal/tmpdir)
// that Cleanup removes when contend ends (and the next contend, or
// `contend cleanup`, when it was killed), and names the directory in the
// environment ($CONTEND_WIS_DIR) that the children inherit; a child finds
// its object there by the hash of the test's bytes, compiler and shim
// (Object), so that the compiler never runs inside a repetition and its
// page faults and context switches are not in the repetition's evidence. A
// test edited during the run is found out there: its hash has no object.
package wisbuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"contend"
	"contend/internal/esc"
	"contend/internal/lazyre"
	"contend/internal/safefile"
	"contend/internal/tmpdir"
)

// DirEnv names the directory of the compiled tests in the children's
// environment.
const DirEnv = "CONTEND_WIS_DIR"

// ObjectsEnv names a directory of tests compiled beforehand (KEY.so and
// KEY.run, as Build names them): a machine without a compiler, such as
// the QEMU guest of a campaign that 'contend reproduce --run' fills
// (internal/reproduce), runs the objects found there for a test's bytes
// instead of compiling it. Build and Object look there before compiling.
const ObjectsEnv = "CONTEND_WIS_OBJECTS"

// MaxSource is the largest test file accepted (will-it-scale's are 1-4 KiB).
const MaxSource = 1 << 20

// Flags are the compiler's flags: will-it-scale's CFLAGS (-Wall -O2 -g)
// plus what a shared object needs (the leader's executable drops -fPIC
// -shared).
var Flags = []string{"-O2", "-g", "-Wall", "-fPIC", "-shared", "-pthread"}

// shimFiles are the sources of the shim, from contend's embedded native/.
var shimFiles = []string{"wis_shim.c", "wis_proc.c", "wis.h", "contend.h"}

// Built is a compiled test: Exe, the tasks' leader (wis_proc.c: a small
// C process that runs the tasks as its threads or forks them, as
// will-it-scale's runner); SO, the shared object thread mode loads for
// the test's description.
type Built struct{ SO, Exe string }

// ReadTest reads the test at path: a regular file, not a symbolic link,
// at most MaxSource bytes, whose name is printable; one in a directory
// others may write to (/tmp) must be this user's (or root's). The error
// names the flag --test and says what to do.
func ReadTest(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("--test: which will-it-scale test? give its C file (tests/futex4.c)")
	}
	if err := esc.Check("--test", path); err != nil {
		return nil, err
	}
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--test %s: no such file", path)
	case fi.Mode()&os.ModeSymlink != 0:
		return nil, fmt.Errorf("--test %s is a symbolic link: give the file itself", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("--test %s is not a regular file: give a C file", path)
	case fi.Size() > MaxSource:
		return nil, fmt.Errorf("--test %s has %d bytes, more than a test (at most %d)", path, fi.Size(), MaxSource)
	}
	owners := safefile.SelfOrRoot
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("--test %s: %v", path, err)
	}
	defer f.Close()
	if safefile.Shared(filepath.Dir(path)) {
		if err := safefile.Check(f, owners); err != nil {
			return nil, fmt.Errorf("--test: %v", err)
		}
	} else if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("--test %s is not a regular file: give a C file", path)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("--test %s: %v", path, err)
	}
	if b.Len() > MaxSource {
		return nil, fmt.Errorf("--test %s has more than %d bytes", path, MaxSource)
	}
	return b.Bytes(), nil
}

// Key is the name of the object compiled from src: a hash over the test's
// bytes, the shim and the compiler's flags.
func Key(src []byte) string {
	h := sha256.New()
	h.Write(src)
	for _, n := range shimFiles {
		b, _ := contend.Native.ReadFile("native/" + n)
		h.Write([]byte{0})
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(b)
	}
	h.Write([]byte(strings.Join(Flags, " ")))
	return hex.EncodeToString(h.Sum(nil))[:24]
}

var state struct {
	sync.Mutex
	dir  string
	td   *tmpdir.Dir
	done map[string]Built
}

// Build compiles the test at path (read by ReadTest) into the process's
// private directory, once per content, sets $CONTEND_WIS_DIR for the
// children, and returns the objects' paths. A compile error is one line:
// the compiler's first error, naming the user's file.
func Build(path string) (Built, error) {
	src, err := ReadTest(path)
	if err != nil {
		return Built{}, err
	}
	key := Key(src)
	if b, ok := prebuilt(key); ok {
		return b, nil
	}
	state.Lock()
	defer state.Unlock()
	if b, ok := state.done[key]; ok {
		return b, nil
	}
	if state.dir == "" {
		td, err := tmpdir.New(tmpdir.WIS, "")
		if err != nil {
			return Built{}, fmt.Errorf("--test %s: cannot make a directory to compile it in: %v", path, err)
		}
		d := td.Path
		state.dir, state.td = d, td
		state.done = map[string]Built{}
		os.Setenv(DirEnv, d)
	}
	b, err := compile(path, src, state.dir, key)
	if err != nil {
		return Built{}, err
	}
	state.done[key] = b
	return b, nil
}

func builtIn(dir, key string) Built {
	return Built{SO: filepath.Join(dir, key+".so"), Exe: filepath.Join(dir, key+".run")}
}

// prebuilt returns the objects of key in $CONTEND_WIS_OBJECTS, when both
// are regular files there.
func prebuilt(key string) (Built, bool) {
	dir := os.Getenv(ObjectsEnv)
	if dir == "" {
		return Built{}, false
	}
	b := builtIn(dir, key)
	for _, p := range []string{b.SO, b.Exe} {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return Built{}, false
		}
	}
	return b, true
}

// Cleanup removes the directory Build made, if any. contend calls it on
// its way out.
func Cleanup() {
	state.Lock()
	defer state.Unlock()
	if state.dir != "" {
		state.td.Close()
		os.Unsetenv(DirEnv)
		state.dir, state.td, state.done = "", nil, nil
	}
}

// Object returns the compiled test at path in a child: the one the parent
// built for its present bytes ($CONTEND_WIS_DIR, then
// $CONTEND_WIS_OBJECTS), else one compiled now into a temporary directory
// (a child started without the parent's Build, as in tests), with the
// function that removes it.
func Object(path string) (Built, func(), error) {
	src, err := ReadTest(path)
	if err != nil {
		return Built{}, nil, err
	}
	key := Key(src)
	if dir := os.Getenv(DirEnv); dir != "" {
		b := builtIn(dir, key)
		if fi, err := os.Lstat(b.SO); err == nil && fi.Mode().IsRegular() {
			return b, func() {}, nil
		}
		if b, ok := prebuilt(key); ok {
			return b, func() {}, nil
		}
		return Built{}, nil, fmt.Errorf("--test %s changed since the run compiled it: run again", path)
	}
	if b, ok := prebuilt(key); ok {
		return b, func() {}, nil
	}
	td, err := tmpdir.New(tmpdir.WIS, "")
	if err != nil {
		return Built{}, nil, fmt.Errorf("--test %s: cannot make a directory to compile it in: %v", path, err)
	}
	b, err := compile(path, src, td.Path, key)
	if err != nil {
		td.Close()
		return Built{}, nil, err
	}
	return b, func() { td.Close() }, nil
}

// compile writes src and the shim into dir and runs the compiler twice:
// the shared object (test + wis_shim.c) and the leader (test + wis_shim.c
// + wis_proc.c).
func compile(path string, src []byte, dir, key string) (Built, error) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		return Built{}, fmt.Errorf("--test %s: no gcc on PATH to compile it with: install gcc", path)
	}
	sub := filepath.Join(dir, key)
	if err := os.Mkdir(sub, 0o700); err != nil {
		return Built{}, fmt.Errorf("--test %s: %v", path, err)
	}
	defer os.RemoveAll(sub)
	name := "test.c"
	if b := filepath.Base(path); strings.HasSuffix(b, ".c") && esc.Check("", b) == nil && !strings.ContainsAny(b, " ") {
		name = b
	}
	if err := os.WriteFile(filepath.Join(sub, name), src, 0o600); err != nil {
		return Built{}, fmt.Errorf("--test %s: %v", path, err)
	}
	for _, n := range shimFiles {
		b, err := contend.Native.ReadFile("native/" + n)
		if err != nil {
			return Built{}, fmt.Errorf("the shim's %s is not in this contend: %v", n, err)
		}
		if err := os.WriteFile(filepath.Join(sub, n), b, 0o600); err != nil {
			return Built{}, fmt.Errorf("--test %s: %v", path, err)
		}
	}
	b := builtIn(dir, key)
	exeFlags := []string{}
	for _, f := range Flags {
		if f != "-fPIC" && f != "-shared" {
			exeFlags = append(exeFlags, f)
		}
	}
	for _, c := range [][]string{
		append(append([]string{}, Flags...), "-o", b.SO, "-x", "c", name, "wis_shim.c"),
		append(append([]string{}, exeFlags...), "-o", b.Exe, "-x", "c", name, "wis_shim.c", "wis_proc.c"),
	} {
		cmd := exec.Command(cc, c...)
		cmd.Dir = sub
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.CombinedOutput()
		if err != nil {
			if k := killed(path, cc, err, string(out)); k != nil {
				return Built{}, k
			}
			msg := strings.ReplaceAll(string(out), sub+"/", "")
			return Built{}, fmt.Errorf("--test %s does not compile: %s", path, FirstError(msg, name, path))
		}
	}
	return b, nil
}

// KilledError is a compile that a signal ended (the compiler or one of
// its programs killed: the OOM killer, a Ctrl-C): no fault of the test.
type KilledError struct {
	Path string         // the test
	Prog string         // the program killed: gcc, or the one gcc names (cc1)
	Sig  syscall.Signal // 0: gcc did not say which
	Line string         // gcc's line saying so, when it was one of its programs
}

func (e *KilledError) Error() string {
	how := "by a signal (" + e.Line + ")"
	if e.Sig != 0 {
		how = fmt.Sprintf("by signal %d (%s)", int(e.Sig), unix.SignalName(e.Sig))
	}
	return fmt.Sprintf("--test %s: the compiler was interrupted: %s was killed %s; nothing says the test is wrong: run again", e.Path, e.Prog, how)
}

// gccKilledRE is gcc's line when a program it ran died of a signal:
// "gcc: fatal error: Killed signal terminated program cc1".
var gccKilledRE = lazyre.New(`(?m)^.*signal terminated program (\S+).*$`)

// killed returns the *KilledError of a compile that a signal ended (the
// compiler cc itself, or a program it ran, as its output says), else nil.
func killed(path, cc string, err error, out string) *KilledError {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return &KilledError{Path: path, Prog: filepath.Base(cc), Sig: ws.Signal()}
		}
	}
	if m := gccKilledRE().FindStringSubmatch(out); m != nil {
		return &KilledError{Path: path, Prog: m[1], Line: strings.TrimSpace(m[0])}
	}
	return nil
}

// FirstError returns the compiler's first error line of out (else its
// first line, else "the compiler failed"), with the copy's name name
// replaced by the user's path.
func FirstError(out, name, path string) string {
	lines := strings.Split(out, "\n")
	pick := ""
	for _, l := range lines {
		if strings.Contains(l, "error:") || strings.Contains(l, "undefined reference") {
			pick = l
			break
		}
	}
	if pick == "" {
		for _, l := range lines {
			if strings.TrimSpace(l) != "" && !strings.Contains(l, "In function") {
				pick = l
				break
			}
		}
	}
	if pick == "" {
		return "the compiler failed without a message"
	}
	pick = strings.TrimSpace(pick)
	if strings.HasPrefix(pick, name+":") {
		pick = path + pick[len(name):]
	}
	return esc.Line(pick)
}
