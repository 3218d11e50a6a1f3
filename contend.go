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
	"runtime/debug"
	"sort"
)

// Version is the contend release; FullVersion adds the source revision
// the binary was built from, which result files record.
const Version = "0.1.0"

// FullVersion is Version with the revision of the sources this binary
// was built from and whether they had local changes, as the go command
// stamped them (debug.ReadBuildInfo: vcs.revision, vcs.modified):
// "0.1.0+fb1c8a9c1d2e" or "0.1.0+fb1c8a9c1d2e-dirty"; Version alone when
// the build recorded no revision (a git worktree, -buildvcs=false, a copy
// outside a checkout). Two builds of one release from different sources
// then say different versions: compare's build differences name them.
func FullVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return versionOf(bi.Settings)
}

// versionOf is FullVersion of the build settings s.
func versionOf(s []debug.BuildSetting) string {
	var rev, modified string
	for _, x := range s {
		switch x.Key {
		case "vcs.revision":
			rev = x.Value
		case "vcs.modified":
			modified = x.Value
		}
	}
	if rev == "" {
		return Version
	}
	v := Version + "+" + rev[:min(len(rev), 12)]
	if modified == "true" {
		v += "-dirty"
	}
	return v
}

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
