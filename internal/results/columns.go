package results

import (
	"math"
	"slices"
	"time"
)

// Columns holds a file's repetitions column by column: one slice per
// metric (with whether each repetition has it), one per field every
// repetition has (index, configuration, round, status and warm-up), the
// start times, load averages and boot ids only when some repetition has
// them, and the rare fields (errors, notes, outputs, series, a status
// not of the four) by repetition only where present.
//
// A repetition of one metric costs 10 to 22 bytes here, where a Rep
// costs 208 and its Values 48 more: Read(path, AsColumns) reads a large
// file straight into Columns, and compare reads 2 x 1,000,000 samples in
// about the memory benchstat takes (docs/result-files.md).
// Rep(i) gives repetition i as the Rep the other readers give.
type Columns struct {
	n int
	// index, config and round are nil when compact found them to tell
	// nothing (see Index, Config, Round). implicit: they are not made
	// yet, every row being its index, of configuration 0 and of round 0
	// or its index (flagRoundIndex), but the rows the decoders found
	// otherwise (colFound.ids): merge makes them then.
	index        []int32
	config       []int32
	round        []int32
	roundIsIndex bool
	implicit     bool
	flags        []uint8
	// names are the metric names, sorted; vals[k] and has[k] are metric
	// names[k]'s column.
	names []string
	vals  [][]float64
	has   [][]bool
	start []time.Time // nil: no repetition has a start
	load  []float64   // nil: no repetition has a load average
	boot  []string    // nil: no repetition has a boot id
	extra map[int]*repExtra
}

// The flags of a repetition: its status (statusCode), warm-up, and
// whether its Metrics is non-nil (an empty object in the file reads as
// empty Values, no object as nil).
const (
	flagStatus  = 0x07
	flagWarmup  = 0x08
	flagMetrics = 0x10
	flagWide    = 0x20 // index, config or round beyond 32 bits: in extra
	// flagRoundIndex: the round is the index (not 0), in a row of
	// implicit Columns whose index, configuration and round are not in
	// colFound.ids.
	flagRoundIndex = 0x40
)

// statusCodes are the statuses held as a code; statusOther (and an empty
// status, code 0) are kept as they are.
var statusCodes = [...]string{"", StatusOK, StatusFailed, StatusTimeout, StatusInterrupted}

const statusOther = 7

// repExtra holds the rare fields of a repetition.
type repExtra struct {
	status string // when not one of statusCodes
	err    string
	notes  []string
	output string
	series map[string][]float64
	// index, config, round of a repetition flagged wide.
	index, config, round int
}

// colFound is what decoders found beyond the dense columns, merged into
// the Columns after they end: the rare fields of rows, and the index,
// configuration and round of rows of implicit Columns that are not
// their row, 0 and 0 or the index.
type colFound struct {
	extras []colExtra
	ids    []rowIDs
}

// rowIDs is the index, configuration and round of a row.
type rowIDs struct {
	row, index, config, round int32
}

// colExtra is what a decoder found of repetition row beyond the dense
// columns, merged into the Columns after the decoders end.
type colExtra struct {
	row   int
	start time.Time
	load  float64
	boot  string
	x     *repExtra
}

// newColumns returns n empty repetitions with the metrics of names; their
// index, configuration and round are implicit (see Columns) unless dense:
// a file of several configurations.
func newColumns(n int, names []string, dense bool) *Columns {
	c := &Columns{n: n, flags: make([]uint8, n), implicit: !dense}
	if dense {
		c.index, c.config, c.round = make([]int32, n), make([]int32, n), make([]int32, n)
	}
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		c.addColumn(name)
	}
	return c
}

// addColumn adds an empty column for metric name (not yet in c) and
// returns its position.
func (c *Columns) addColumn(name string) int {
	k, _ := slices.BinarySearch(c.names, name)
	c.names = slices.Insert(c.names, k, name)
	c.vals = slices.Insert(c.vals, k, make([]float64, c.n))
	c.has = slices.Insert(c.has, k, make([]bool, c.n))
	return k
}

// column returns the position of metric name's column.
func (c *Columns) column(name string) (int, bool) {
	return slices.BinarySearch(c.names, name)
}

// ColumnsOf returns the repetitions reps as Columns.
func ColumnsOf(reps []Rep) *Columns {
	seen := map[string]bool{}
	var names []string
	for i := range reps {
		for _, v := range reps[i].Metrics {
			if !seen[v.Name] {
				seen[v.Name] = true
				names = append(names, v.Name)
			}
		}
	}
	c := newColumns(len(reps), names, true)
	var found colFound
	for i := range reps {
		c.setRow(i, &reps[i], &found, true)
	}
	c.merge(found)
	c.compact()
	return c
}

// fits32 tells whether x is an int32.
func fits32(x int) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// setRow sets row i to r; what is beyond the dense columns goes to
// found. Rows are independent: decoders set different rows at once.
// false means r has a metric without a column and add is false: the
// caller reads the file the other way (new columns cannot be added while
// decoders run).
func (c *Columns) setRow(i int, r *Rep, found *colFound, add bool) bool {
	for _, v := range r.Metrics {
		if _, ok := c.column(v.Name); !ok {
			if !add {
				return false
			}
			c.addColumn(v.Name)
		}
	}
	wide := !fits32(r.Index) || !fits32(r.Config) || !fits32(r.Round)
	var ids rowIDs // 0, 0, 0 for a wide row (its own in extra)
	if !wide {
		ids = rowIDs{int32(i), int32(r.Index), int32(r.Config), int32(r.Round)}
	}
	roundIndex := false
	switch {
	case !c.implicit:
		c.index[i], c.config[i], c.round[i] = ids.index, ids.config, ids.round
	case !wide && r.Index == i && r.Config == 0 && (r.Round == 0 || r.Round == r.Index):
		roundIndex = r.Round != 0
	default:
		ids.row = int32(i)
		found.ids = append(found.ids, ids)
	}
	code := uint8(statusOther)
	for k, s := range statusCodes {
		if r.Status == s {
			code = uint8(k)
			break
		}
	}
	f := code
	if r.Warmup {
		f |= flagWarmup
	}
	if r.Metrics != nil {
		f |= flagMetrics
	}
	if wide {
		f |= flagWide
	}
	if roundIndex {
		f |= flagRoundIndex
	}
	c.flags[i] = f
	for k := range c.names {
		c.has[k][i] = false
		c.vals[k][i] = 0
	}
	for _, v := range r.Metrics {
		k, _ := c.column(v.Name)
		c.vals[k][i], c.has[k][i] = v.X, true
	}
	rare := wide || code == statusOther || r.Error != "" || r.Notes != nil || r.Output != "" || r.Series != nil
	if rare || !r.Start.IsZero() || r.LoadAvg != 0 || r.BootID != "" {
		e := colExtra{row: i, start: r.Start, load: r.LoadAvg, boot: r.BootID}
		if rare {
			e.x = &repExtra{err: r.Error, notes: r.Notes, output: r.Output, series: r.Series, index: r.Index, config: r.Config, round: r.Round}
			if code == statusOther {
				e.x.status = r.Status
			}
		}
		found.extras = append(found.extras, e)
	}
	return true
}

// merge puts what the decoders found beyond the dense columns in place:
// the index, configuration and round columns of implicit Columns made
// when some row is not implicit.
func (c *Columns) merge(found colFound) {
	if c.implicit && len(found.ids) > 0 {
		c.makeIDs()
		for _, x := range found.ids {
			c.index[x.row], c.config[x.row], c.round[x.row] = x.index, x.config, x.round
		}
	}
	extras := found.extras
	for _, e := range extras {
		if !e.start.IsZero() && c.start == nil {
			c.start = make([]time.Time, c.n)
		}
		if e.load != 0 && c.load == nil {
			c.load = make([]float64, c.n)
		}
		if e.boot != "" && c.boot == nil {
			c.boot = make([]string, c.n)
		}
		if e.x != nil && c.extra == nil {
			c.extra = map[int]*repExtra{}
		}
	}
	for _, e := range extras {
		if c.start != nil {
			c.start[e.row] = e.start
		}
		if c.load != nil {
			c.load[e.row] = e.load
		}
		if c.boot != nil {
			c.boot[e.row] = e.boot
		}
		if e.x != nil {
			c.extra[e.row] = e.x
		} else if c.extra != nil {
			delete(c.extra, e.row)
		}
	}
}

// makeIDs makes the index, configuration and round columns of implicit
// Columns, each row's implicit values.
func (c *Columns) makeIDs() {
	c.index, c.config, c.round = make([]int32, c.n), make([]int32, c.n), make([]int32, c.n)
	for i := range c.n {
		c.index[i] = int32(i)
		if c.flags[i]&flagRoundIndex != 0 {
			c.round[i] = int32(i)
		}
	}
	c.implicit = false
}

// keep leaves only the rows of ranges (each [from, to), in order), moved
// to the front.
func (c *Columns) keep(ranges [][2]int) {
	at := 0
	for _, r := range ranges {
		if r[0] != at && c.implicit {
			c.makeIDs() // a row moves: its index is no longer its row
		}
		at = r[1]
	}
	n := 0
	var moved map[int]*repExtra
	if c.extra != nil {
		moved = map[int]*repExtra{}
	}
	for _, r := range ranges {
		from, to := r[0], r[1]
		if !c.implicit {
			copy(c.index[n:], c.index[from:to])
			copy(c.config[n:], c.config[from:to])
			copy(c.round[n:], c.round[from:to])
		}
		copy(c.flags[n:], c.flags[from:to])
		for k := range c.names {
			copy(c.vals[k][n:], c.vals[k][from:to])
			copy(c.has[k][n:], c.has[k][from:to])
		}
		if c.start != nil {
			copy(c.start[n:], c.start[from:to])
		}
		if c.load != nil {
			copy(c.load[n:], c.load[from:to])
		}
		if c.boot != nil {
			copy(c.boot[n:], c.boot[from:to])
		}
		for i := from; i < to && moved != nil; i++ {
			if x, ok := c.extra[i]; ok {
				moved[n+i-from] = x
			}
		}
		n += to - from
	}
	c.extra = moved
	c.truncate(n)
}

// truncate keeps the first n rows.
func (c *Columns) truncate(n int) {
	c.n = n
	if !c.implicit {
		c.index, c.config, c.round = c.index[:n:n], c.config[:n:n], c.round[:n:n]
	}
	c.flags = c.flags[:n:n]
	for k := range c.names {
		c.vals[k], c.has[k] = c.vals[k][:n:n], c.has[k][:n:n]
	}
	if c.start != nil {
		clear(c.start[n:])
		c.start = c.start[:n:n]
	}
	if c.load != nil {
		c.load = c.load[:n:n]
	}
	if c.boot != nil {
		clear(c.boot[n:])
		c.boot = c.boot[:n:n]
	}
}

// Len returns the number of repetitions.
func (c *Columns) Len() int { return c.n }

// Index, Config, Round, Warmup, Status, Start, LoadAvg and BootID return
// the fields of repetition i.
func (c *Columns) Index(i int) int {
	switch {
	case c.flags[i]&flagWide != 0:
		return c.extra[i].index
	case c.index == nil:
		return i
	}
	return int(c.index[i])
}
func (c *Columns) Config(i int) int {
	switch {
	case c.flags[i]&flagWide != 0:
		return c.extra[i].config
	case c.config == nil:
		return 0
	}
	return int(c.config[i])
}
func (c *Columns) Round(i int) int {
	switch {
	case c.flags[i]&flagWide != 0:
		return c.extra[i].round
	case c.round == nil && c.roundIsIndex:
		return c.Index(i)
	case c.round == nil:
		return 0
	}
	return int(c.round[i])
}

// compact drops the columns of index, configuration and round when they
// tell nothing: every index its row, every configuration 0, every round
// 0 or its index (a file of one configuration, as an import writes it,
// then costs 10 bytes a repetition of one metric). No row may be set
// after.
func (c *Columns) compact() {
	if c.implicit {
		// Every index its row, every configuration 0: only the rounds
		// may tell something.
		c.implicit = false
		round, roundIndex := true, true
		for i := range c.n {
			ri := c.flags[i]&flagRoundIndex != 0
			round = round && !ri
			roundIndex = roundIndex && (ri || i == 0)
		}
		switch {
		case round:
		case roundIndex:
			c.roundIsIndex = true
		default:
			c.round = make([]int32, c.n)
			for i := range c.n {
				if c.flags[i]&flagRoundIndex != 0 {
					c.round[i] = int32(i)
				}
			}
		}
		return
	}
	index, config, round, roundIndex := true, true, true, true
	for i := range c.n {
		if c.flags[i]&flagWide != 0 {
			return
		}
		index = index && c.index[i] == int32(i)
		config = config && c.config[i] == 0
		round = round && c.round[i] == 0
		roundIndex = roundIndex && c.round[i] == c.index[i]
	}
	switch {
	case round:
		c.round = nil
	case roundIndex:
		c.round, c.roundIsIndex = nil, true
	}
	if index {
		c.index = nil
	}
	if config {
		c.config = nil
	}
}
func (c *Columns) Warmup(i int) bool { return c.flags[i]&flagWarmup != 0 }
func (c *Columns) Status(i int) string {
	if code := c.flags[i] & flagStatus; code != statusOther {
		return statusCodes[code]
	}
	return c.extra[i].status
}
func (c *Columns) Start(i int) time.Time {
	if c.start == nil {
		return time.Time{}
	}
	return c.start[i]
}
func (c *Columns) LoadAvg(i int) float64 {
	if c.load == nil {
		return 0
	}
	return c.load[i]
}
func (c *Columns) BootID(i int) string {
	if c.boot == nil {
		return ""
	}
	return c.boot[i]
}

// Names returns the names of the metrics with a column, sorted (a
// column may be empty).
func (c *Columns) Names() []string { return slices.Clone(c.names) }

// Metric returns metric name's column: its value in each repetition and
// whether the repetition has it. Both are the Columns' own: not to be
// changed (Set and Delete change them).
func (c *Columns) Metric(name string) (vals []float64, has []bool) {
	if k, ok := c.column(name); ok {
		return c.vals[k], c.has[k]
	}
	return nil, nil
}

// Lookup returns the value of metric name in repetition i, and whether
// it has it, as Rep(i).Metrics.Lookup does.
func (c *Columns) Lookup(i int, name string) (float64, bool) {
	if k, ok := c.column(name); ok && c.has[k][i] {
		return c.vals[k][i], true
	}
	return 0, false
}

// Set sets metric name of repetition i to x, as Rep(i).Metrics.Set does
// of a Rep's: a new name makes a new column.
func (c *Columns) Set(i int, name string, x float64) {
	k, ok := c.column(name)
	if !ok {
		k = c.addColumn(name)
	}
	c.vals[k][i], c.has[k][i] = x, true
	c.flags[i] |= flagMetrics
}

// Delete removes metric name of repetition i, if it has it. As
// Values.Delete leaves no Values (nil) when it removes the last metric,
// so does Delete.
func (c *Columns) Delete(i int, name string) {
	k, ok := c.column(name)
	if !ok || !c.has[k][i] {
		return
	}
	c.vals[k][i], c.has[k][i] = 0, false
	for k := range c.names {
		if c.has[k][i] {
			return
		}
	}
	c.flags[i] &^= flagMetrics
}

// Metrics returns the metrics of repetition i, a Values of its own.
func (c *Columns) Metrics(i int) Values {
	if c.flags[i]&flagMetrics == 0 {
		return nil
	}
	n := 0
	for k := range c.names {
		if c.has[k][i] {
			n++
		}
	}
	v := make(Values, 0, n)
	for k, name := range c.names {
		if c.has[k][i] {
			v = append(v, Value{name, c.vals[k][i]})
		}
	}
	return v
}

// Rep returns repetition i, sharing nothing the Columns change.
func (c *Columns) Rep(i int) Rep {
	r := Rep{Index: c.Index(i), Config: c.Config(i), Warmup: c.Warmup(i), Round: c.Round(i), Status: c.Status(i),
		Start: c.Start(i), Metrics: c.Metrics(i), LoadAvg: c.LoadAvg(i), BootID: c.BootID(i)}
	if x := c.extra[i]; x != nil {
		r.Error, r.Notes, r.Output, r.Series = x.err, x.notes, x.output, x.series
	}
	return r
}

// Reps returns every repetition (Rep(i) for each i).
func (c *Columns) Reps() []Rep {
	reps := make([]Rep, c.n)
	for i := range reps {
		reps[i] = c.Rep(i)
	}
	return reps
}

// Columns returns f's repetitions as Columns: the file's own when it was
// read AsColumns, else built from f.Reps (a copy: changing it leaves
// f.Reps as they are).
func (f *File) Columns() *Columns {
	if f.cols != nil {
		return f.cols
	}
	return ColumnsOf(f.Reps)
}

// NumReps returns the number of repetitions of f, in Reps or in its
// Columns.
func (f *File) NumReps() int {
	if f.cols != nil {
		return f.cols.Len()
	}
	return len(f.Reps)
}

// AsColumns reads the repetitions into the File's Columns (File.Columns)
// and leaves Reps nil: about a tenth of the memory for a large file, for
// the readers that go through its columns (compare).
const AsColumns ReadOption = 2

// checkColumns is check for a file read AsColumns: the same errors, the
// first wrong repetition's.
func (f *File) checkColumns() error {
	c := f.cols
	names := f.metricNames()
	known := make([]bool, len(c.names)) // each column's metric is described
	for k, name := range c.names {
		known[k] = names.has(name)
	}
	for i := 0; i < c.n; i++ {
		code := c.flags[i] & flagStatus
		bad := c.flags[i]&flagWide != 0 || code == 0 || code == statusOther
		if cf := c.Config(i); cf < 0 || cf >= len(f.Configs) {
			bad = true
		}
		for k := range c.names {
			if c.has[k][i] {
				if x := c.vals[k][i]; math.IsNaN(x) || math.IsInf(x, 0) || !known[k] {
					bad = true
				}
			}
		}
		if bad {
			r := c.Rep(i)
			if err := f.checkRep(i, &r, names); err != nil {
				return err
			}
		}
	}
	return nil
}
