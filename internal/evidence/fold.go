package evidence

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Profile is one repetition's sampled call graphs, folded per symbol:
// Self is each symbol's share of the samples (weighted by period) in
// which it was the sampled function, Children its share of those in
// which it was anywhere on the stack (counted once per sample), both in
// percent of the samples taken. Folded holds the stacks as flame-graph
// tools read them ("root;...;leaf" -> period).
type Profile struct {
	Samples  int
	Lost     int // samples perf lost (its buffer full), of the whole recording
	Total    float64
	Self     map[string]float64
	Children map[string]float64
	Folded   map[string]float64
}

// foldScript reads `perf script -F comm,pid,tid,period,ip,sym,dso`
// output with call chains (a header line per sample, "comm pid/tid
// period", then its frames, leaf first, indented, then a blank line) and
// folds it, counting the samples perf says it lost
// (--show-lost-events). With root > 0 it keeps only the samples of process root and
// of the processes forked from it, and from them: the script then has
// perf's task events (--show-task-events), whose fork lines
// ("PERF_RECORD_FORK(pid:tid):(ppid:ptid)") come before the new
// process's samples (perf script orders events by time). The folded
// stacks start with the sampled task's command name, as Brendan Gregg's
// stackcollapse-perf.pl does.
func foldScript(r io.Reader, root int) (*Profile, error) {
	p := &Profile{Self: map[string]float64{}, Children: map[string]float64{}, Folded: map[string]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	tree := map[int]bool{root: true}
	var period float64
	var comm string
	var frames []string
	inSample := false
	flush := func() {
		if !inSample {
			return
		}
		inSample = false
		if len(frames) == 0 {
			frames = []string{"[unknown]"}
		}
		p.Samples++
		p.Total += period
		p.Self[frames[0]] += period
		seen := map[string]bool{}
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				p.Children[f] += period
			}
		}
		stack := make([]string, len(frames)+1)
		stack[0] = foldedFrame(comm)
		for i, f := range frames {
			stack[len(frames)-i] = foldedFrame(f)
		}
		p.Folded[strings.Join(stack, ";")] += period
		frames = frames[:0]
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if inSample {
				frames = append(frames, frameSymbol(line))
			}
		default:
			flush()
			if i := strings.Index(line, "PERF_RECORD_"); i >= 0 {
				if root > 0 {
					forked(line[i:], tree, root)
				}
				p.Lost += lostRecord(line[i:])
				continue
			}
			var pid int
			comm, pid = sampleTask(line)
			inSample = root <= 0 || tree[pid]
			period = samplePeriod(line)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if p.Total > 0 {
		for _, m := range []map[string]float64{p.Self, p.Children} {
			for k, v := range m {
				m[k] = 100 * v / p.Total
			}
		}
	}
	return p, nil
}

// foldedFrame is a frame as a folded stack holds it: no ";" (the frames'
// separator), no line break.
func foldedFrame(f string) string {
	return strings.NewReplacer(";", ":", "\n", " ").Replace(f)
}

// forkRecord is perf script's line of a fork: the new task's pid and
// tid, then its parent's.
var forkRecord = regexp.MustCompile(`^PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)`)

// forked adds the process a fork event creates to tree when it is forked
// from a process of tree (a new thread's pid is its process's already),
// and takes it out when not: a pid of the tree that ended and was given
// to another process. The root stays: perf's records of the processes
// there when it started name the child with its parent (contend), and
// its pid is free again only from its reap, just before perf is told to
// stop.
func forked(event string, tree map[int]bool, root int) {
	m := forkRecord.FindStringSubmatch(event)
	if m == nil {
		return
	}
	pid, _ := strconv.Atoi(m[1])
	ppid, _ := strconv.Atoi(m[3])
	switch {
	case tree[ppid]:
		tree[pid] = true
	case pid != ppid && pid != root:
		delete(tree, pid)
	}
}

// lostRecord is the number of samples a PERF_RECORD_LOST or
// PERF_RECORD_LOST_SAMPLES line of perf script --show-lost-events says
// were lost (its last number), 0 for another record.
func lostRecord(event string) int {
	if !strings.HasPrefix(event, "PERF_RECORD_LOST") {
		return 0
	}
	f := strings.Fields(event)
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		return 0
	}
	return n
}

// sampleTask is the command name and process id of a sample's header
// line ("comm pid/tid period"; a comm may hold spaces); pid is 0 where
// the line has no pid/tid, comm then its first word.
func sampleTask(line string) (comm string, pid int) {
	f := strings.Fields(line)
	for i, w := range f {
		a, _, ok := strings.Cut(w, "/")
		if n, err := strconv.Atoi(a); ok && err == nil && i > 0 {
			return strings.Join(f[:i], " "), n
		}
	}
	if len(f) == 0 {
		return "", 0
	}
	return f[0], 0
}

// samplePeriod is the last number of a sample's header line ("comm
// period"; 1 when there is none, as in a script without the period).
func samplePeriod(line string) float64 {
	f := strings.Fields(line)
	for i := len(f) - 1; i >= 0; i-- {
		if x, err := strconv.ParseFloat(strings.TrimSuffix(f[i], ":"), 64); err == nil && x > 0 {
			return x
		}
	}
	return 1
}

// frameSymbol is the function of a frame line "addr sym+off (dso)": the
// symbol without its offset, or "[unknown] (dso base name)" when perf
// could not name it.
func frameSymbol(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return "[unknown]"
	}
	rest := f[1:]
	dso := ""
	if last := rest[len(rest)-1]; strings.HasPrefix(last, "(") && strings.HasSuffix(last, ")") {
		dso = strings.Trim(last, "()")
		rest = rest[:len(rest)-1]
	}
	sym := strings.Join(rest, " ")
	if i := strings.LastIndex(sym, "+0x"); i > 0 {
		sym = sym[:i]
	}
	if sym == "" || sym == "[unknown]" {
		if i := strings.LastIndex(dso, "/"); i >= 0 {
			dso = dso[i+1:]
		}
		if dso == "" || dso == "[unknown]" {
			return "[unknown]"
		}
		return "[unknown] (" + dso + ")"
	}
	return sym
}

// Top returns the symbols of m with at least min percent, largest first
// (ties by name), at most n of them.
func Top(m map[string]float64, min float64, n int) []string {
	var out []string
	for k, v := range m {
		if v >= min {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// A Folder is a collector that keeps the folded call stacks of the last
// repetition it stopped (the profile: "root;...;leaf" -> samples,
// weighted by their period), for a flame graph of a side.
type Folder interface {
	TakeFolded() map[string]float64
}

// TakeFolded returns the folded call stacks the collectors of s kept from
// the last repetition they stopped, and forgets them (nil: none kept).
// The caller takes them after every repetition, wanted or not, so that
// one repetition's stacks are never taken for the next's.
func (s *Set) TakeFolded() map[string]float64 {
	if s == nil {
		return nil
	}
	var out map[string]float64
	for _, c := range s.Active {
		if f, ok := c.(Folder); ok {
			for k, v := range f.TakeFolded() {
				if out == nil {
					out = map[string]float64{}
				}
				out[k] += v
			}
		}
	}
	return out
}

// WriteFolded writes stacks in the folded format flame-graph tools read
// (Brendan Gregg's stackcollapse output, flamegraph.pl's input): one
// "root;...;leaf COUNT" line per stack, the count a whole number, in
// the order of the stacks' text.
func WriteFolded(w io.Writer, stacks map[string]float64) error {
	keys := make([]string, 0, len(stacks))
	for k := range stacks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		fmt.Fprintf(bw, "%s %.0f\n", k, stacks[k])
	}
	return bw.Flush()
}

// ReadFolded reads what WriteFolded wrote (a folded-stack file, summed
// where a stack is on several lines); a line that is not "STACK COUNT"
// is an error naming it.
func ReadFolded(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i <= 0 || err != nil || v < 0 {
			return nil, fmt.Errorf("line %d is not \"STACK COUNT\": %.60q", n, line)
		}
		out[line[:i]] += v
	}
	return out, sc.Err()
}
