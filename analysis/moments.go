package analysis

// Moments are the sufficient statistics of a normal sample: its size,
// mean and sum of squared deviations from the mean (M2), kept by
// Welford's update so that samples can be added and taken out again
// without holding their values.
type Moments struct {
	N    int
	Mean float64
	M2   float64
}

// MomentsOf returns the moments of xs.
func MomentsOf(xs []float64) Moments {
	var m Moments
	for _, x := range xs {
		m.Add(x)
	}
	return m
}

// Add adds the value x.
func (m *Moments) Add(x float64) {
	m.N++
	d := x - m.Mean
	m.Mean += d / float64(m.N)
	m.M2 += d * (x - m.Mean)
}
