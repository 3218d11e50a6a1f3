//go:build race

package harness

// raceOn tells the tests that the race detector is on: it adds its own
// work to every goroutine switch, so counts of the runtime's sleeps are
// not the runtime's alone.
const raceOn = true
