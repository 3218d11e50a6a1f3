package results

// A Tally is what a summary of the measured (non-warm-up) repetitions of
// one configuration needs of them: how many ended in each status, the
// values of each metric over the successful ones, the notes and the
// errors, each with its count. File.Tally makes it from a File; an import
// that streams its records to the file (OpenFrom) Adds each record to a
// Tally instead of holding them all.
type Tally struct {
	// Config is the configuration tallied; < 0: all of them.
	Config int
	// Counts holds the repetitions in each status, as File.Counts.
	Counts map[string]int
	// Values holds each metric's values in the order of the
	// repetitions, as File.Values.
	Values map[string][]float64
	// Notes counts the repetitions carrying each note.
	Notes map[string]int
	// Failures are the distinct errors of the repetitions that failed or
	// timed out (an interrupted one did not fail), in the order they
	// first came, with their counts.
	Failures []Failure
	failed   map[string]int // index in Failures
}

// A Failure is an error of a Tally's repetitions and how many had it.
type Failure struct {
	Error string
	N     int
}

// NewTally returns an empty Tally of configuration c (c < 0: all).
func NewTally(c int) *Tally {
	return &Tally{Config: c, Counts: map[string]int{}, Values: map[string][]float64{}, Notes: map[string]int{}, failed: map[string]int{}}
}

// Tally returns the Tally of the repetitions of configuration c of f
// (c < 0: all).
func (f *File) Tally(c int) *Tally {
	t := NewTally(c)
	for i := range f.Reps {
		t.Add(&f.Reps[i])
	}
	return t
}

// Add counts r in t, unless it is a warm-up or of another configuration.
func (t *Tally) Add(r *Rep) {
	if r.Warmup || (t.Config >= 0 && r.Config != t.Config) {
		return
	}
	t.Counts[r.Status]++
	for _, n := range r.Notes {
		t.Notes[n]++
	}
	switch r.Status {
	case StatusOK:
		for k, v := range r.Metrics.All() {
			t.Values[k] = append(t.Values[k], v)
		}
	case StatusInterrupted:
	default:
		if i, ok := t.failed[r.Error]; ok {
			t.Failures[i].N++
		} else {
			t.failed[r.Error] = len(t.Failures)
			t.Failures = append(t.Failures, Failure{r.Error, 1})
		}
	}
}
