package kbuild

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"contend/analysis"
	"contend/internal/jsonl"
	"contend/internal/plural"
	"contend/internal/safefile"
	"contend/internal/textfmt"
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
			return fmt.Errorf("a build of %s with %g s and %d objects", textfmt.Commit(r.Revision), r.BuildSeconds, r.Rebuilt)
		}
		return nil
	})
}

// Summary is what the builds of a ledger cost: the builds made and the
// images kept (nothing built); the first build made (a clean one when
// the build directory was new) apart, and the builds after it (a
// probe's or a side's rebuild): the median and largest time and
// objects rebuilt; the total time and objects of all.
type Summary struct {
	Builds        int     `json:"builds"`
	Kept          int     `json:"kept"`
	FirstSeconds  float64 `json:"first_seconds"`
	FirstRebuilt  int     `json:"first_objects_rebuilt"`
	MedianSeconds float64 `json:"later_median_seconds"`
	MaxSeconds    float64 `json:"later_max_seconds"`
	MedianRebuilt float64 `json:"later_median_objects_rebuilt"`
	MaxRebuilt    int     `json:"later_max_objects_rebuilt"`
	TotalSeconds  float64 `json:"total_seconds"`
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
		s.Builds++
		s.TotalSeconds += r.BuildSeconds
		s.TotalRebuilt += r.Rebuilt
		if s.Builds == 1 {
			s.FirstSeconds, s.FirstRebuilt = r.BuildSeconds, r.Rebuilt
			continue
		}
		secs = append(secs, r.BuildSeconds)
		objs = append(objs, float64(r.Rebuilt))
		s.MaxRebuilt = max(s.MaxRebuilt, r.Rebuilt)
	}
	if len(secs) > 0 {
		s.MedianSeconds, s.MaxSeconds = analysis.Median(secs), slices.Max(secs)
		s.MedianRebuilt = analysis.Median(objs)
	}
	return s
}

// String is the summary in one line, as 'bisect status' and 'campaign
// status' show it.
func (s *Summary) String() string {
	line := "kernel builds: " + strconv.Itoa(s.Builds)
	if s.Kept > 0 {
		line += fmt.Sprintf(" (and %s kept from earlier builds)", plural.N(s.Kept, "image", "images"))
	}
	if s.Builds == 0 {
		return line
	}
	line += fmt.Sprintf(": the first %s, %s rebuilt", seconds(s.FirstSeconds), plural.N(s.FirstRebuilt, "object", "objects"))
	if s.Builds > 1 {
		line += fmt.Sprintf("; the %d after it: time median %s, max %s, objects rebuilt median %g, max %d", s.Builds-1,
			seconds(s.MedianSeconds), seconds(s.MaxSeconds), s.MedianRebuilt, s.MaxRebuilt)
	}
	return line + "; total " + seconds(s.TotalSeconds)
}

// seconds writes a build time: seconds below 10 minutes, else minutes.
func seconds(x float64) string {
	if x < 600 {
		return fmt.Sprintf("%.1f s", x)
	}
	return fmt.Sprintf("%.1f min", x/60)
}
