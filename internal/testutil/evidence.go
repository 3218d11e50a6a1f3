package testutil

import (
	"sync"

	"contend/internal/results"
)

// CountingCollector is an evidence collector that counts its calls: its
// Stop gives the metric k.test.starts (the number of Start calls so far)
// and the note "counted". Read Starts and Stops once the calls returned.
type CountingCollector struct {
	mu     sync.Mutex
	Starts []int // the pids of the Start calls
	Stops  int   // the number of Stop calls
}

// Name returns "count".
func (c *CountingCollector) Name() string { return "count" }

// Metrics declares k.test.starts.
func (c *CountingCollector) Metrics() []results.Metric {
	return []results.Metric{{Name: "k.test.starts", Unit: "count"}}
}

// Start records pid.
func (c *CountingCollector) Start(pid int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Starts = append(c.Starts, pid)
	return nil
}

// Stop counts the call and gives k.test.starts and the note "counted".
func (c *CountingCollector) Stop() (map[string]float64, []string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Stops++
	return map[string]float64{"k.test.starts": float64(len(c.Starts))}, []string{"counted"}, nil
}

// Close does nothing.
func (c *CountingCollector) Close() error { return nil }
