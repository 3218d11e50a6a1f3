package port

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// InputError is a refused --template: the command's usage error.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

var templateName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// WriteTemplate writes the template of mode to path (".c" added when it
// lacks it), never over an existing file, and the plugin header hdr
// beside it unless one is there (a different one is warned of); it says
// on log what it wrote and how to build and run the plugin. A template
// that could not be written whole is removed, not left half-written.
func WriteTemplate(path, mode string, hdr []byte, log io.Writer) error {
	given := path
	if !strings.HasSuffix(path, ".c") {
		path += ".c"
	}
	base := strings.TrimSuffix(filepath.Base(path), ".c")
	if !templateName.MatchString(base) {
		return &InputError{fmt.Sprintf("--template: %q is not accepted; accepted: a file name such as mytest", given)}
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrExist):
		return &InputError{fmt.Sprintf("port: %s exists; not overwritten", path)}
	case errors.As(err, &pe):
		return &InputError{fmt.Sprintf("--template: cannot create %s: %v; accepted: a file name in an existing, writable directory", path, pe.Err)}
	case err != nil:
		return err
	}
	_, err = fh.WriteString(Template(base, mode))
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("port: writing %s: %v", path, err)
	}
	fmt.Fprintf(log, "wrote %s\n", path)
	writeHeader(log, filepath.Join(filepath.Dir(path), "contend_plugin.h"), hdr)
	fmt.Fprintf(log, "build: cc -O2 -fPIC -shared -o %s.so %s\nrun:   contend run plugin --so ./%s.so --threads 2 --duration 5s -n 5\n",
		strings.TrimSuffix(path, ".c"), path, base)
	return nil
}

// writeHeader writes the plugin header hdr as h unless h exists, which it
// warns of when it differs.
func writeHeader(log io.Writer, h string, hdr []byte) {
	if old, err := os.ReadFile(h); err == nil {
		if !bytes.Equal(old, hdr) {
			fmt.Fprintf(log, "warning: %s differs from this contend's header; see contend port --header\n", h)
		}
	} else if err := os.WriteFile(h, hdr, 0o644); err == nil {
		fmt.Fprintf(log, "wrote %s\n", h)
	}
}
