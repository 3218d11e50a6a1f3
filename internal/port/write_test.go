package port

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteTemplate: NAME becomes NAME.c with the header beside it and
// the build and run lines; an existing file is not overwritten, a bad
// name or a missing directory is an InputError naming --template, and a
// header that differs is kept and warned of.
func TestWriteTemplate(t *testing.T) {
	dir := t.TempDir()
	hdr := []byte("/* header */\n")
	var log bytes.Buffer
	path := filepath.Join(dir, "mytest")
	if err := WriteTemplate(path, "fixed", hdr, &log); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path + ".c")
	if err != nil || string(src) != Template("mytest", "fixed") {
		t.Fatalf("%s.c: %v, not the fixed template", path, err)
	}
	if h, err := os.ReadFile(filepath.Join(dir, "contend_plugin.h")); err != nil || !bytes.Equal(h, hdr) {
		t.Errorf("the header beside it: %q %v", h, err)
	}
	want := []string{"wrote " + path + ".c\n", "wrote " + filepath.Join(dir, "contend_plugin.h") + "\n",
		"build: cc -O2 -fPIC -shared -o " + path + ".so " + path + ".c\n", "--so ./mytest.so"}
	for _, w := range want {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q:\n%s", w, log.String())
		}
	}
	for _, c := range []struct{ path, want string }{
		{path + ".c", "exists; not overwritten"},
		{filepath.Join(dir, "9 bad"), "--template: "},
		{filepath.Join(dir, "nosuch", "x"), "--template: cannot create"},
	} {
		err := WriteTemplate(c.path, "duration", hdr, &log)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an InputError with %q", c.path, err, c.want)
		}
	}
	log.Reset()
	if err := WriteTemplate(filepath.Join(dir, "other.c"), "duration", []byte("/* newer */\n"), &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "differs from this contend's header") {
		t.Errorf("a different header beside it was not warned of:\n%s", log.String())
	}
	if h, _ := os.ReadFile(filepath.Join(dir, "contend_plugin.h")); !bytes.Equal(h, hdr) {
		t.Errorf("the header beside it was overwritten: %q", h)
	}
}
