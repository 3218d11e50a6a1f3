package wisbuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/tmpdir"
)

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okTest = `char *testcase_description = "ok";
void testcase(unsigned long long *iterations, unsigned long nr) { for (;;) (*iterations)++; }
`

// TestReadTestRefuses checks every refusal of --test: one line naming the
// flag.
func TestReadTestRefuses(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.c", okTest)
	link := filepath.Join(dir, "link.c")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	big := write(t, dir, "big.c", strings.Repeat("x", MaxSource+1))
	cases := []struct{ path, want string }{
		{"", "which will-it-scale test"},
		{filepath.Join(dir, "missing.c"), "no such file"},
		{link, "is a symbolic link"},
		{dir, "not a regular file"},
		{big, "more than a test"},
		{dir + "/a\x1bb.c", "control character"},
	}
	for _, c := range cases {
		_, err := ReadTest(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--test") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReadTest(%q) = %v, want one line with --test and %q", c.path, err, c.want)
		}
	}
	if b, err := ReadTest(good); err != nil || string(b) != okTest {
		t.Errorf("ReadTest(good) = %q, %v", b, err)
	}
}

// TestCompileErrorIsOneLine checks that a test that does not compile is
// refused with the compiler's first error, naming the user's file.
func TestCompileErrorIsOneLine(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.c", "void testcase(unsigned long long *i, unsigned long n) {\n  undeclared_thing++;\n  also_bad++;\n}\n")
	t.Setenv(DirEnv, "")
	_, _, err := Object(bad)
	if err == nil {
		t.Fatal("a test that does not compile was accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, bad+":2:") || !strings.Contains(msg, "undeclared_thing") || strings.Contains(msg, "also_bad") {
		t.Errorf("compile error = %q, want one line: the first error, at %s:2", msg, bad)
	}
}

// TestBuildOnceAndCleanup checks that Build compiles once per content into
// one private directory named in the environment, that a child's Object
// finds it, that an edited test is found out, and that Cleanup removes the
// directory.
func TestBuildOnceAndCleanup(t *testing.T) {
	t.Setenv(DirEnv, "")
	dir := t.TempDir()
	p := write(t, dir, "ok.c", okTest)
	so, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	d := os.Getenv(DirEnv)
	if d == "" || filepath.Dir(so.SO) != d || filepath.Dir(so.Exe) != d {
		t.Fatalf("Build put %v outside $%s=%q", so, DirEnv, d)
	}
	if fi, err := os.Stat(so.Exe); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("the leader %s is not an executable: %v", so.Exe, err)
	}
	if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the directory %s: %v, %v (want mode 0700)", d, fi, err)
	}
	so2, err := Build(p)
	if err != nil || so2 != so {
		t.Errorf("second Build = %s, %v; want the same object %s", so2, err, so)
	}
	got, done, err := Object(p)
	if err != nil || got != so {
		t.Errorf("Object = %s, %v; want %s", got, err, so)
	} else {
		done()
	}
	write(t, dir, "ok.c", okTest+"\n/* edited */\n")
	if _, _, err := Object(p); err == nil || !strings.Contains(err.Error(), "changed since the run compiled it") {
		t.Errorf("Object of an edited test = %v, want it refused", err)
	}
	entries, _ := os.ReadDir(d)
	var names []string
	for _, e := range entries {
		if e.Name() != tmpdir.OwnerFile {
			names = append(names, e.Name())
		}
	}
	if len(names) != 2 {
		t.Errorf("the directory holds %v besides its owner file, want only the two objects (sources removed)", names)
	}
	Cleanup()
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("Cleanup left %s: %v", d, err)
	}
	if os.Getenv(DirEnv) != "" {
		t.Errorf("Cleanup left $%s set", DirEnv)
	}
}

// TestPrebuiltObjects checks $CONTEND_WIS_OBJECTS, a machine without a
// compiler: Build and a child's Object take the objects found there for
// the test's bytes (no compile: no private directory), and a test whose
// objects are not there is compiled as before.
func TestPrebuiltObjects(t *testing.T) {
	t.Setenv(DirEnv, "")
	objs := t.TempDir()
	dir := t.TempDir()
	p := write(t, dir, "ok.c", okTest)
	key := Key([]byte(okTest))
	for _, n := range []string{key + ".so", key + ".run"} {
		write(t, objs, n, "an object compiled elsewhere")
	}
	t.Setenv(ObjectsEnv, objs)
	t.Cleanup(Cleanup)
	b, err := Build(p)
	if err != nil || b != builtIn(objs, key) || os.Getenv(DirEnv) != "" {
		t.Errorf("Build = %v, %v, $%s %q; want the objects of $%s, nothing compiled", b, err, DirEnv, os.Getenv(DirEnv), ObjectsEnv)
	}
	got, done, err := Object(p)
	if err != nil || got != builtIn(objs, key) {
		t.Errorf("Object = %v, %v", got, err)
	} else {
		done()
	}
	other := write(t, dir, "other.c", okTest+"\n/* another */\n")
	if b, err := Build(other); err != nil || filepath.Dir(b.SO) == objs {
		t.Errorf("a test not prebuilt: %v, %v; want it compiled", b, err)
	}
}

// TestKeyDependsOnContent checks that the object's name follows the bytes.
func TestKeyDependsOnContent(t *testing.T) {
	a1, a2, b := Key([]byte("a")), Key([]byte("a")), Key([]byte("b"))
	if a1 == b || a1 != a2 {
		t.Errorf("Key does not follow the test's bytes: a %q, a again %q, b %q", a1, a2, b)
	}
}

func TestFirstError(t *testing.T) {
	out := "t.c: In function 'testcase':\nt.c:3:1: warning: unused\nt.c:4:2: error: 'x' undeclared\nt.c:5:2: error: 'y'\n"
	if got := FirstError(out, "t.c", "/home/u/futex4.c"); got != "/home/u/futex4.c:4:2: error: 'x' undeclared" {
		t.Errorf("FirstError = %q", got)
	}
	if got := FirstError("", "t.c", "p"); got != "the compiler failed without a message" {
		t.Errorf("FirstError(empty) = %q", got)
	}
}

// TestReadTestRefusesForeignFileInSharedDir checks that a test in a
// directory others may write to must be this user's or root's (needs root
// to make another user's file).
func TestReadTestRefusesForeignFileInSharedDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	p := write(t, dir, "foreign.c", okTest)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTest(p); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("ReadTest(another user's file in a shared directory) = %v, want it refused", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTest(p); err != nil {
		t.Errorf("ReadTest(another user's file in a private directory) = %v, want it read", err)
	}
}

// TestKilledCompilerIsNotTheTests: a compiler killed by a signal (the
// OOM killer, a Ctrl-C), or a program of gcc's killed (gcc then says
// "Killed signal terminated program cc1"), is reported as such, with
// the signal: not as a test that does not compile.
func TestKilledCompilerIsNotTheTests(t *testing.T) {
	t.Setenv(ObjectsEnv, "")
	for i, c := range []struct{ gcc, want string }{
		{"#!/bin/sh\nkill -KILL $$\n", "the compiler was interrupted: gcc was killed by signal 9 (SIGKILL)"},
		{"#!/bin/sh\necho 'gcc: fatal error: Killed signal terminated program cc1' >&2\necho 'compilation terminated.' >&2\nexit 1\n",
			"the compiler was interrupted: cc1 was killed by a signal (gcc: fatal error: Killed signal terminated program cc1)"},
	} {
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "gcc"), []byte(c.gcc), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
		dir := t.TempDir()
		// A test of its own content: not one compiled before.
		p := write(t, dir, "ok.c", okTest+"/* killed "+string(rune('a'+i))+" */\n")
		_, err := Build(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "does not compile") {
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
}
