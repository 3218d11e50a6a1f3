package vm

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The modes of the entries a CPIOWriter writes (the type bits of
// st_mode).
const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeLink = 0o120000
)

// CPIOWriter writes a cpio archive in the "newc" format (magic 070701),
// the one the kernel unpacks into the initial root file system. Every
// entry belongs to root, dated 0 (an archive built twice from the same
// files is the same). Close writes the trailer; several archives may be
// concatenated, and the kernel unpacks them in order (a later entry of
// one path replaces an earlier one).
type CPIOWriter struct {
	w    *bufio.Writer
	n    int64 // bytes written
	ino  uint32
	seen map[string]bool
}

// NewCPIOWriter returns a writer of one archive onto w.
func NewCPIOWriter(w io.Writer) *CPIOWriter {
	return &CPIOWriter{w: bufio.NewWriterSize(w, 1<<16), ino: 1, seen: map[string]bool{}}
}

// Dir adds directory name (a path without a leading slash, such as
// "usr/lib") with permissions perm.
func (c *CPIOWriter) Dir(name string, perm uint32) error {
	return c.entry(name, modeDir|perm&0o7777, nil)
}

// File adds regular file name with permissions perm and contents data.
func (c *CPIOWriter) File(name string, perm uint32, data []byte) error {
	return c.entry(name, modeFile|perm&0o7777, data)
}

// Symlink adds symbolic link name pointing at target.
func (c *CPIOWriter) Symlink(name, target string) error {
	return c.entry(name, modeLink|0o777, []byte(target))
}

// entry writes one header, its name and its data, each padded to 4
// bytes.
func (c *CPIOWriter) entry(name string, mode uint32, data []byte) error {
	name = strings.TrimPrefix(name, "/")
	if name == "" || strings.ContainsRune(name, 0) {
		return fmt.Errorf("cpio: %q is not an entry name", name)
	}
	if c.seen[name] {
		return fmt.Errorf("cpio: %s is in the archive twice", name)
	}
	c.seen[name] = true
	nlink := 1
	if mode&0o170000 == modeDir {
		nlink = 2
	}
	c.ino++
	return c.header(c.ino, mode, nlink, name, data, 0, 0)
}

// Node adds device node name: mode holds its type (0o020000, a
// character device; 0o060000, a block device) and permissions.
func (c *CPIOWriter) Node(name string, mode, major, minor uint32) error {
	name = strings.TrimPrefix(name, "/")
	if t := mode & 0o170000; t != 0o020000 && t != 0o060000 {
		return fmt.Errorf("cpio: %s: mode %o is not a device's", name, mode)
	}
	if c.seen[name] {
		return fmt.Errorf("cpio: %s is in the archive twice", name)
	}
	c.seen[name] = true
	c.ino++
	return c.header(c.ino, mode, 1, name, nil, major, minor)
}

func (c *CPIOWriter) header(ino, mode uint32, nlink int, name string, data []byte, rmajor, rminor uint32) error {
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize, check
	h := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmajor, rminor, len(name)+1, 0)
	if err := c.write([]byte(h)); err != nil {
		return err
	}
	if err := c.write(append([]byte(name), 0)); err != nil {
		return err
	}
	if err := c.pad(); err != nil {
		return err
	}
	if err := c.write(data); err != nil {
		return err
	}
	return c.pad()
}

func (c *CPIOWriter) write(b []byte) error {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return err
}

func (c *CPIOWriter) pad() error {
	if r := c.n % 4; r != 0 {
		return c.write(make([]byte, 4-r))
	}
	return nil
}

// Close writes the trailer and flushes; the underlying writer stays
// open.
func (c *CPIOWriter) Close() error {
	if err := c.header(0, 0, 1, "TRAILER!!!", nil, 0, 0); err != nil {
		return err
	}
	return c.w.Flush()
}

// CPIOEntry is one entry of an archive read back by ReadCPIO.
type CPIOEntry struct {
	Name string
	Mode uint32 // type and permission bits
	Data []byte // a file's contents, a link's target
	// RMajor and RMinor are a device node's numbers.
	RMajor, RMinor uint32
}

// ReadCPIO reads every newc archive of r, one after the other (their
// trailers and the zero padding between them skipped), and returns their
// entries in order.
func ReadCPIO(r io.Reader) ([]CPIOEntry, error) {
	br := bufio.NewReader(r)
	var out []CPIOEntry
	var off int64
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		_, err := io.ReadFull(br, b)
		off += int64(n)
		return b, err
	}
	skipPad := func() error {
		if r := off % 4; r != 0 {
			_, err := read(int(4 - r))
			return err
		}
		return nil
	}
	for {
		// Zeros between archives (the kernel skips them too).
		b, err := br.Peek(1)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if b[0] == 0 {
			br.ReadByte()
			off++
			continue
		}
		h, err := read(110)
		if err != nil {
			return out, fmt.Errorf("cpio: a header cut short at byte %d", off)
		}
		if string(h[:6]) != "070701" {
			return out, fmt.Errorf("cpio: no newc magic at byte %d (%q)", off-110, h[:6])
		}
		field := func(i int) (uint32, error) {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			return uint32(v), err
		}
		var f [13]uint32
		for i := range f {
			if f[i], err = field(i); err != nil {
				return out, fmt.Errorf("cpio: header field %d at byte %d: %v", i, off-110, err)
			}
		}
		name, err := read(int(f[11]))
		if err != nil || len(name) == 0 || name[len(name)-1] != 0 {
			return out, fmt.Errorf("cpio: a name cut short at byte %d", off)
		}
		if err := skipPad(); err != nil {
			return out, err
		}
		data, err := read(int(f[6]))
		if err != nil {
			return out, fmt.Errorf("cpio: %s: its data cut short", name[:len(name)-1])
		}
		if err := skipPad(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return out, err
		}
		n := string(name[:len(name)-1])
		if n == "TRAILER!!!" {
			continue
		}
		out = append(out, CPIOEntry{Name: n, Mode: f[1], Data: data, RMajor: f[9], RMinor: f[10]})
	}
}
