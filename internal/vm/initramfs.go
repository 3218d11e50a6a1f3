package vm

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// GuestBinary is where the contend binary sits in the guest; /init is a
// link to it.
const GuestBinary = "/bin/contend"

// jobFile is the guest's path of the job (a small archive of its own,
// appended per boot).
const jobFile = "contend-job.json"

// libDirs are searched, in order, for a shared library a binary needs
// (after its DT_RUNPATH or DT_RPATH): Debian's multiarch directories and
// the usual ones.
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}

// Libraries returns what the dynamic binary exe needs to run elsewhere:
// its program interpreter (PT_INTERP) and every shared library of its
// DT_NEEDED entries, recursively, each as the absolute path the loader
// finds it at. A static binary needs none.
func Libraries(exe string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var visit func(file string, top bool) error
	visit = func(file string, top bool) error {
		f, err := elf.Open(file)
		if err != nil {
			return fmt.Errorf("reading %s as ELF: %w", file, err)
		}
		defer f.Close()
		if top {
			for _, p := range f.Progs {
				if p.Type != elf.PT_INTERP {
					continue
				}
				b, err := io.ReadAll(p.Open())
				if err != nil {
					return fmt.Errorf("%s: reading its interpreter: %w", file, err)
				}
				interp := strings.TrimRight(string(b), "\x00")
				if !seen[interp] {
					seen[interp] = true
					out = append(out, interp)
				}
			}
		}
		needed, err := f.ImportedLibraries()
		if err != nil {
			return fmt.Errorf("%s: reading DT_NEEDED: %w", file, err)
		}
		dirs := slices.Clone(libDirs)
		for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
			if rp, err := f.DynString(tag); err == nil {
				for _, s := range rp {
					for _, d := range strings.Split(s, ":") {
						d = strings.ReplaceAll(d, "$ORIGIN", filepath.Dir(file))
						if d != "" {
							dirs = append([]string{d}, dirs...)
						}
					}
				}
			}
		}
		for _, lib := range needed {
			found := ""
			for _, d := range dirs {
				p := filepath.Join(d, lib)
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					found = p
					break
				}
			}
			if found == "" {
				return fmt.Errorf("%s needs %s, which is in none of %s", file, lib, strings.Join(dirs, ", "))
			}
			if seen[found] {
				continue
			}
			seen[found] = true
			out = append(out, found)
			if err := visit(found, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(exe, true); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteInitramfs writes the guest's userspace as a newc archive onto w:
// the contend binary exe as GuestBinary with /init a link to it, the
// shared libraries it needs (Libraries) where the loader looks for them,
// /dev/console, and the empty directories the guest mounts on. It
// returns the libraries written.
func WriteInitramfs(w io.Writer, exe string) ([]string, error) {
	libs, err := Libraries(exe)
	if err != nil {
		return nil, err
	}
	c := NewCPIOWriter(w)
	dirs := map[string]bool{}
	mkdirs := func(p string) error {
		var parts []string
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			parts = append(parts, d)
		}
		for i := len(parts) - 1; i >= 0; i-- {
			if dirs[parts[i]] {
				continue
			}
			dirs[parts[i]] = true
			if err := c.Dir(parts[i], 0o755); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range []string{"/dev/x", "/proc/x", "/sys/x", "/tmp/x", "/run/x", "/root/x", "/etc/x", "/var/tmp/x"} {
		if err := mkdirs(d); err != nil {
			return nil, err
		}
	}
	if err := c.Node("dev/console", 0o020600, 5, 1); err != nil {
		return nil, err
	}
	add := func(src, dst string, perm uint32) error {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := mkdirs(dst); err != nil {
			return err
		}
		return c.File(dst, perm, b)
	}
	if err := add(exe, GuestBinary, 0o755); err != nil {
		return nil, err
	}
	if err := c.Symlink("init", strings.TrimPrefix(GuestBinary, "/")); err != nil {
		return nil, err
	}
	if len(libs) > 0 {
		libs = append(libs, dlopened(libs)...)
	}
	for _, l := range libs {
		if err := add(l, l, 0o755); err != nil {
			return nil, err
		}
	}
	return libs, c.Close()
}

// runtimeLibs are the libraries glibc loads with dlopen at run time, which
// no DT_NEEDED names: libgcc_s.so.1, for pthread_cancel and unwinding (a
// will-it-scale test's threads are cancelled at the end; without it glibc
// aborts: "libgcc_s.so.1 must be installed for pthread_cancel to work").
var runtimeLibs = []string{"libgcc_s.so.1"}

// dlopened returns the runtimeLibs found beside the libraries libs (a
// dynamic binary's) or in libDirs, that libs does not hold yet.
func dlopened(libs []string) []string {
	var out []string
	dirs := []string{}
	for _, l := range libs {
		if d := filepath.Dir(l); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, libDirs...)
	for _, name := range runtimeLibs {
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if slices.Contains(libs, p) {
				break
			}
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// writeJob writes the job archive: jobFile holding job, then files, each
// at its guest path (its directories made) with its host file's
// permissions.
func writeJob(w io.Writer, job []byte, files []File) error {
	c := NewCPIOWriter(w)
	if err := c.File(jobFile, 0o600, job); err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, f := range files {
		if err := CheckGuestPath(f.Guest); err != nil {
			return err
		}
		var parts []string
		for d := path.Dir(f.Guest); d != "/"; d = path.Dir(d) {
			parts = append(parts, d)
		}
		for i := len(parts) - 1; i >= 0; i-- {
			if !dirs[parts[i]] {
				dirs[parts[i]] = true
				if err := c.Dir(parts[i], 0o755); err != nil {
					return err
				}
			}
		}
		fi, err := os.Stat(f.Host)
		if err != nil {
			return fmt.Errorf("a file for the guest: %w", err)
		}
		b, err := os.ReadFile(f.Host)
		if err != nil {
			return fmt.Errorf("a file for the guest: %w", err)
		}
		if err := c.File(f.Guest, uint32(fi.Mode().Perm()), b); err != nil {
			return err
		}
	}
	return c.Close()
}

// guestOwned are the guest's paths a file put into it must stay out of:
// what its init mounts, contend and its libraries, the job.
var guestOwned = []string{"/proc", "/sys", "/dev", "/run", "/tmp", "/init", GuestBinary, "/" + jobFile, "/lib", "/lib64", "/usr"}

// CheckGuestPath refuses a guest path for a file (Command.Files) that is
// not absolute and clean, or lies in what the guest's init owns.
func CheckGuestPath(p string) error {
	if !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
		return fmt.Errorf("%q is not accepted as a file's path in the guest: an absolute, clean path such as /contend-wis/futex4.c", p)
	}
	for _, o := range guestOwned {
		if p == o || strings.HasPrefix(p, o+"/") {
			return fmt.Errorf("%q is not accepted as a file's path in the guest: %s is the guest's own", p, o)
		}
	}
	return nil
}

// ProgramFiles returns the dynamic program host (such as /usr/bin/perf)
// as files of a guest: the program at guest, its libraries in libDir
// (outside what the guest's init owns), and the LD_LIBRARY_PATH word for
// Command.Env that finds them after the guest's own (the libraries the
// guest has, glibc's, stay the ones every other program of the guest
// loads). The interpreter is the guest's, at the path the program names.
func ProgramFiles(host, guest, libDir string) ([]File, string, error) {
	libs, err := Libraries(host)
	if err != nil {
		return nil, "", err
	}
	files := []File{{Host: host, Guest: guest}}
	seen := map[string]bool{}
	for _, l := range libs {
		if b := path.Base(l); !seen[b] && !strings.HasPrefix(b, "ld-linux") {
			seen[b] = true
			files = append(files, File{Host: l, Guest: path.Join(libDir, b)})
		}
	}
	for _, f := range files {
		if err := CheckGuestPath(f.Guest); err != nil {
			return nil, "", err
		}
	}
	return files, "LD_LIBRARY_PATH=" + strings.Join(append(append([]string{}, libDirs...), libDir), ":"), nil
}
