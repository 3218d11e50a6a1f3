// Package export writes a result file as one JSON document for other
// tools (`contend show --format json`): the file's header and every
// repetition, as contend reads them (version 1: 'contend show' and
// 'contend compare' read the document back), plus, per configuration, the
// summary statistics of every metric over the successful measured
// repetitions, as hyperfine's --export-json gives them.
package export

import (
	"encoding/json"
	"fmt"
	"math"

	"contend/analysis"
	"contend/internal/results"
)

// Confidence is the coverage asked of the interval of each median.
const Confidence = 0.95

// Document is what Marshal writes: the result file (its fields at the top
// level), whether the run finished, and the summaries.
type Document struct {
	*results.File
	// Complete is true when the run ended normally (its end record is in
	// the file); false while it runs and after an interruption.
	Complete bool `json:"complete"`
	// Summary holds one entry per configuration, in the order of
	// Configs.
	Summary []Config `json:"summary"`
}

// Config is the summary of one configuration.
type Config struct {
	Config int    `json:"config"` // index in configs
	Name   string `json:"name"`   // "", "a", "b", "threads=4"
	// Counts holds the measured repetitions in each status (ok, failed,
	// timeout, interrupted).
	Counts  map[string]int `json:"counts"`
	Metrics []Metric       `json:"metrics"`
}

// Metric is the summary of one metric over the successful measured
// repetitions, in its base unit (ns, bytes, counts). A statistic that is
// not defined (a CV of mean 0, an interval of fewer than 6 values) is
// null.
type Metric struct {
	Name     string   `json:"name"`
	Unit     string   `json:"unit"`
	Better   string   `json:"better,omitempty"`
	N        int      `json:"n"`
	Median   float64  `json:"median"`
	MedianCI *CI      `json:"median_ci"`
	Mean     float64  `json:"mean"`
	StdDev   float64  `json:"stddev"`
	CV       *float64 `json:"cv"`
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Q1       float64  `json:"q1"`
	Q3       float64  `json:"q3"`
	// Values are the metric's values, in the order of the repetitions
	// (hyperfine's "times").
	Values []float64 `json:"values"`
}

// CI is a distribution-free interval of the median: order statistics
// covering it with probability Coverage (at least Confidence).
type CI struct {
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	Coverage   float64 `json:"coverage"`
}

// Summarize returns the document of f.
func Summarize(f *results.File) (*Document, error) {
	d := &Document{File: f, Complete: f.Complete, Summary: []Config{}}
	for c := range f.Configs {
		t := f.Tally(c)
		sc := Config{Config: c, Name: f.Configs[c].Name, Counts: t.Counts, Metrics: []Metric{}}
		for _, m := range f.Metrics {
			xs := t.Values[m.Name]
			if len(xs) == 0 {
				continue
			}
			s, err := analysis.Summarize(xs, Confidence)
			if err != nil {
				return nil, fmt.Errorf("configuration %d, metric %s: %v", c+1, m.Name, err)
			}
			sm := Metric{Name: m.Name, Unit: m.Unit, Better: m.Better, N: s.N, Median: s.Median, Mean: s.Mean,
				StdDev: s.StdDev, Min: s.Min, Max: s.Max, Q1: s.Q1, Q3: s.Q3, Values: xs}
			if s.HasCI {
				sm.MedianCI = &CI{Low: s.MedianLo, High: s.MedianHi, Confidence: Confidence, Coverage: s.Coverage}
			}
			if !math.IsNaN(s.CV) && !math.IsInf(s.CV, 0) {
				cv := s.CV
				sm.CV = &cv
			}
			sc.Metrics = append(sc.Metrics, sm)
		}
		d.Summary = append(d.Summary, sc)
	}
	return d, nil
}

// Marshal encodes f's document, indented, with a final newline.
func Marshal(f *results.File) ([]byte, error) {
	// results.Marshal checks every value is finite and sets the format
	// and version of one document; its bytes are not used.
	if _, err := results.Marshal(f); err != nil {
		return nil, err
	}
	g := *f
	g.Format, g.Version = results.FormatName, 1
	d, err := Summarize(&g)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
