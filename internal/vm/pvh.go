package vm

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// A bzImage's kernel is compressed, and its decompressor, run in the
// guest, is slow under TCG (Debian's xz-compressed 6.1 kernel: about 7 s
// of a 12 s boot on a loaded 2-core host). When the kernel inside has a
// PVH entry point (Xen's PHYS32_ENTRY ELF note: CONFIG_PVH, set in
// Debian's and most distributions' kernels), QEMU boots the ELF vmlinux
// directly: Runner.Boot decompresses it once on the host and boots that.

// payloadCodecs are the kernel's compressions by magic, with the host
// command that undoes one (gzip: Go's own).
var payloadCodecs = []struct {
	magic []byte
	name  string
	cmd   []string
}{
	{[]byte{0x1f, 0x8b}, "gzip", nil},
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "xz", []string{"xz", "-dc"}},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd", []string{"zstd", "-dcq"}},
	{[]byte{0x5d, 0, 0}, "lzma", []string{"xz", "--format=lzma", "-dc"}},
	{[]byte{'B', 'Z', 'h'}, "bzip2", []string{"bzip2", "-dc"}},
	{[]byte{0x02, 0x21, 0x4c, 0x18}, "lz4", []string{"lz4", "-dcq"}},
}

// payload returns the compressed kernel of a bzImage (the boot
// protocol's payload_offset and payload_length, 2.08 and later).
func payload(image []byte) ([]byte, error) {
	if len(image) < 0x250 || string(image[0x202:0x206]) != "HdrS" {
		return nil, fmt.Errorf("not a bzImage")
	}
	if v := binary.LittleEndian.Uint16(image[0x206:]); v < 0x208 {
		return nil, fmt.Errorf("boot protocol %x.%02x has no payload fields", v>>8, v&0xff)
	}
	setup := int(image[0x1f1])
	if setup == 0 {
		setup = 4
	}
	off := (setup+1)*512 + int(binary.LittleEndian.Uint32(image[0x248:]))
	n := int(binary.LittleEndian.Uint32(image[0x24c:]))
	if off < 0 || n <= 0 || off+n > len(image) {
		return nil, fmt.Errorf("its payload (%d bytes at %d) is not inside the file", n, off)
	}
	return image[off : off+n], nil
}

// decompress undoes the kernel's compression.
func decompress(p []byte) ([]byte, error) {
	for _, c := range payloadCodecs {
		if !bytes.HasPrefix(p, c.magic) {
			continue
		}
		if c.cmd == nil {
			z, err := gzip.NewReader(bytes.NewReader(p))
			if err != nil {
				return nil, err
			}
			z.Multistream(false)
			return io.ReadAll(z)
		}
		if _, err := exec.LookPath(c.cmd[0]); err != nil {
			return nil, fmt.Errorf("the kernel is %s-compressed and %s is not installed", c.name, c.cmd[0])
		}
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Stdin = bytes.NewReader(p)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		// A decompressor may complain of the bytes after the stream
		// (the kernel's size) after writing it all: the ELF check
		// decides.
		err := cmd.Run()
		if out.Len() == 0 {
			return nil, fmt.Errorf("%s: %v %s", c.cmd[0], err, firstLine(errb.String()))
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("unknown compression (magic %x)", p[:min(6, len(p))])
}

// hasPVH reports whether an ELF kernel has Xen's PHYS32_ENTRY note (18),
// the PVH entry QEMU boots.
func hasPVH(vmlinux string) bool {
	f, err := elf.Open(vmlinux)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		b, err := io.ReadAll(p.Open())
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz, dsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
			name := b[12:min(len(b), 12+int(nsz))]
			if typ == 18 && bytes.Equal(bytes.TrimRight(name, "\x00"), []byte("Xen")) {
				return true
			}
			adv := 12 + int((nsz+3)&^3) + int((dsz+3)&^3)
			if adv > len(b) {
				break
			}
			b = b[adv:]
		}
	}
	return false
}

// pvhKernel returns the ELF kernel with a PVH entry inside bzImage
// image, decompressed into dir (once per image), or why there is none.
func pvhKernel(image, dir string) (string, error) {
	b, err := os.ReadFile(image)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	out := filepath.Join(dir, "vmlinux-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	p, err := payload(b)
	if err != nil {
		return "", err
	}
	k, err := decompress(p)
	if err != nil {
		return "", err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, k, 0o644); err != nil {
		return "", err
	}
	if !hasPVH(tmp) {
		os.Remove(tmp)
		return "", fmt.Errorf("its kernel has no PVH entry (CONFIG_PVH)")
	}
	return out, os.Rename(tmp, out)
}
