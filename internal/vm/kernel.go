package vm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// KernelVersion returns the version string an x86 kernel image (a
// bzImage, as arch/x86/boot/bzImage and Debian's vmlinuz-* are) carries
// in its setup header, such as "6.1.0-57-amd64
// (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian
// 6.1.158-1 (2025-11-09)"; its first word is the release (uname -r). A
// file without the header (not a bzImage: an ELF vmlinux, a compressed
// file, anything else) is an error that says so.
func KernelVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// The boot protocol: "HdrS" at 0x202, the protocol version at
	// 0x206, and at 0x20e the offset (from 0x200) of the version string.
	hdr := make([]byte, 0x210)
	if _, err := io.ReadFull(f, hdr); err != nil || string(hdr[0x202:0x206]) != "HdrS" {
		return "", fmt.Errorf("%s is not an x86 kernel image (bzImage): no boot protocol header; give arch/x86/boot/bzImage or a distribution's vmlinuz", path)
	}
	off := int64(binary.LittleEndian.Uint16(hdr[0x20e:])) + 0x200
	if off == 0x200 {
		return "", fmt.Errorf("%s: its boot header names no kernel version", path)
	}
	b := make([]byte, 256)
	n, _ := f.ReadAt(b, off)
	b = b[:n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	v := strings.TrimSpace(string(b))
	if v == "" || strings.IndexFunc(v, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		return "", fmt.Errorf("%s: its boot header's kernel version is not text", path)
	}
	return v, nil
}

// KernelRelease returns the release (uname -r) of a kernel image: the
// first word of KernelVersion.
func KernelRelease(path string) (string, error) {
	v, err := KernelVersion(path)
	if err != nil {
		return "", err
	}
	return strings.Fields(v)[0], nil
}
