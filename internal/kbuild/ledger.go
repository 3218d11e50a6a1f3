package kbuild

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"contend/analysis"
	"contend/internal/jsonl"
	"contend/internal/plural"
	"contend/internal/safefile"
)

// BuildsFile is the ledger of the kernel builds of a search or a
// campaign, in its directory: one Record a line, appended after each
// build through internal/jsonl (O_APPEND and fsync; a torn last line
// skipped, any other damage refused), beside the search's or the
// campaign's own ledger (docs/HACKING.md says why apart).
const BuildsFile = "builds.jsonl"

// Record is one line of a builds ledger: what Build made (the
// revision and patch, the image, the config's hash and contention
// options, the build's time and objects rebuilt, or that the image was
// kept), when, and for a campaign which side it is.
type Record struct {
	Time time.Time `json:"time"`
	Side string    `json:"side,omitempty"` // a campaign's side: A or B
	Kernel
}

// Append appends the build k (of side, "" for a search) to the builds
// ledger at path.
func Append(path string, k *Kernel, side string) error {
	return jsonl.Append(path, Record{Time: time.Now().UTC(), Side: side, Kernel: *k})
}

// ReadLedger returns the builds recorded in the ledger at path (none
// when it does not exist) and the number of torn lines skipped; a line
// that is not a build refuses it.
func ReadLedger(path string) ([]Record, int, error) {
	return jsonl.Read(path, safefile.SelfOrRoot, func(r Record) error {
		switch {
		case r.Revision == "":
			return errors.New("a build with no revision")
		case r.BuildSeconds < 0 || r.Rebuilt < 0:
			return fmt.Errorf("a build of %s with %g s and %d objects", short(r.Revision), r.BuildSeconds, r.Rebuilt)
		}
		return nil
	})
}

// Summary is what the builds of a ledger cost: the builds made and the
// images kept (nothing built), the time of the builds made (median,
// largest, total; the first, usually the clean one, separately) and
// the objects they rebuilt.
type Summary struct {
	Builds        int     `json:"builds"`
	Kept          int     `json:"kept"`
	FirstSeconds  float64 `json:"first_seconds"`
	MedianSeconds float64 `json:"median_seconds"`
	MaxSeconds    float64 `json:"max_seconds"`
	TotalSeconds  float64 `json:"total_seconds"`
	MedianRebuilt float64 `json:"median_objects_rebuilt"`
	MaxRebuilt    int     `json:"max_objects_rebuilt"`
	TotalRebuilt  int     `json:"total_objects_rebuilt"`
}

// Summarize sums up the records rs (nil when there are none).
func Summarize(rs []Record) *Summary {
	if len(rs) == 0 {
		return nil
	}
	s := &Summary{}
	var secs, objs []float64
	for _, r := range rs {
		if r.Cached {
			s.Kept++
			continue
		}
		if s.Builds == 0 {
			s.FirstSeconds = r.BuildSeconds
		}
		s.Builds++
		secs = append(secs, r.BuildSeconds)
		objs = append(objs, float64(r.Rebuilt))
		s.TotalSeconds += r.BuildSeconds
		s.TotalRebuilt += r.Rebuilt
		s.MaxRebuilt = max(s.MaxRebuilt, r.Rebuilt)
	}
	if s.Builds > 0 {
		s.MedianSeconds, s.MaxSeconds = analysis.Median(secs), slices.Max(secs)
		s.MedianRebuilt = analysis.Median(objs)
	}
	return s
}

// String is the summary in one line, as 'bisect status' and 'campaign
// status' show it.
func (s *Summary) String() string {
	line := "kernel builds: " + plural.N(s.Builds, "build", "builds")
	if s.Kept > 0 {
		line += fmt.Sprintf(" (and %s kept from earlier builds)", plural.N(s.Kept, "image", "images"))
	}
	if s.Builds == 0 {
		return line
	}
	return line + fmt.Sprintf(": the first %s; time median %s, max %s, total %s; objects rebuilt median %g, max %d, total %d",
		seconds(s.FirstSeconds), seconds(s.MedianSeconds), seconds(s.MaxSeconds), seconds(s.TotalSeconds), s.MedianRebuilt, s.MaxRebuilt, s.TotalRebuilt)
}

// seconds writes a build time: seconds below 10 minutes, else minutes.
func seconds(x float64) string {
	if x < 600 {
		return fmt.Sprintf("%.1f s", x)
	}
	return fmt.Sprintf("%.1f min", x/60)
}
