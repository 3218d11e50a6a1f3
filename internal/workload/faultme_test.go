package workload

import (
	"strings"
	"testing"

	"contend/bind"
)

// TestFaultmeZeroPageNote: the note tells the zero page from real pages
// by the RssAnon the timed region added, not by the child's whole RssAnon,
// about 1 MiB of which is the Go runtime's heap: 'faultme --threads 1
// --mem 64KiB' with the zero page added 4 KiB (a thread's stack page) to
// 1.1 MiB, and was said to have allocated real pages.
func TestFaultmeZeroPageNote(t *testing.T) {
	for _, c := range []struct {
		name string
		r    bind.FaultmeResult
		want string
	}{
		{"64KiB, zero page, Go heap", bind.FaultmeResult{PagesTouched: 16, MinFlt: 17, RSSAnonBeforeKiB: 1096, RSSAnonKiB: 1100}, "mapped the shared zero page"},
		{"64KiB, real pages", bind.FaultmeResult{PagesTouched: 16, MinFlt: 17, RSSAnonBeforeKiB: 1096, RSSAnonKiB: 1096 + 64}, "allocated real pages"},
		{"1GiB, zero page", bind.FaultmeResult{PagesTouched: 262144, MinFlt: 262150, RSSAnonBeforeKiB: 1200, RSSAnonKiB: 1210}, "mapped the shared zero page"},
		{"1GiB, real pages", bind.FaultmeResult{PagesTouched: 262144, MinFlt: 262150, RSSAnonBeforeKiB: 1200, RSSAnonKiB: 1200 + 1<<20}, "allocated real pages"},
		{"64MiB --thp huge, huge zero page", bind.FaultmeResult{PagesTouched: 16384, MinFlt: 35, RSSAnonBeforeKiB: 1100, RSSAnonKiB: 1100}, "mapped the shared huge zero page"},
		{"64MiB --thp huge, real huge pages", bind.FaultmeResult{PagesTouched: 16384, MinFlt: 35, RSSAnonBeforeKiB: 1100, RSSAnonKiB: 1100 + 64<<10}, "allocated real pages"},
		{"RssAnon fell", bind.FaultmeResult{PagesTouched: 16, MinFlt: 16, RSSAnonBeforeKiB: 1100, RSSAnonKiB: 1090}, "mapped the shared zero page"},
	} {
		if got := zeroPageNote(c.r); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := zeroPageNote(bind.FaultmeResult{}); got != "" {
		t.Errorf("no pages read: %q", got)
	}
}

// TestFaultmeRSSAddedOfTheRun: a real repetition (1 thread, 64 KiB, in
// this process) reports the RssAnon its timed region added, far below the
// process's whole RssAnon, and its note agrees with it whichever regime
// this kernel runs.
func TestFaultmeRSSAddedOfTheRun(t *testing.T) {
	p := bind.FaultmeParams{Threads: 1, Mem: 64 << 10, Stride: 4096, THP: bind.THPNever, ReportFD: -1}
	s, err := runFaultme(&p, Runtime{ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	added, whole := s.Metrics["rss_anon_added"], s.Metrics["rss_anon"]
	if added > whole/4 || added < -whole {
		t.Errorf("rss_anon_added %v of rss_anon %v", added, whole)
	}
	zero := added < 16*4096/4
	if len(s.Notes) != 1 || strings.Contains(s.Notes[0], "zero page (") != zero {
		t.Errorf("rss_anon_added %v, notes %q", added, s.Notes)
	}
}
