// Package contend holds what the whole module shares at its root: the
// version and the embedded C sources of native/.
//
// Embedding native/ here does two jobs. cgo does not rebuild bind/ when a
// file it #includes from native/ changes (golang/go#24355); because bind
// imports this package, and this package's build inputs are the embedded
// files, an edit in native/ changes this package and so rebuilds bind. And
// the embedded bytes give NativeHash, the provenance recorded in every
// result file.
package contend

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
)

// Version is the contend release. Result files record it.
const Version = "0.1.0"

// Native holds native/*.c and native/*.h as compiled into bind.
//
//go:embed native/*.c native/*.h
var Native embed.FS

// NativeHash returns the first 16 hex digits of a SHA-256 over the names and
// contents of the embedded native sources, in name order.
func NativeHash() string {
	names, _ := fs.Glob(Native, "native/*")
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, _ := Native.ReadFile(n)
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
