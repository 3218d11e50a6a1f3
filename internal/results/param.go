package results

// ConcurrencyUnits are the parameter units that make a parameter a thread
// or task count (workload.Param.Unit, recorded as Param.Unit): sweeps fit
// USL and Amdahl curves only against such a parameter.
var ConcurrencyUnits = []string{"threads", "tasks", "processes"}

// Shown returns the value of p as people read it: Display, else Value.
func (p Param) Shown() string {
	if p.Display != "" {
		return p.Display
	}
	return p.Value
}
