package workload

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"contend/bind"
	"contend/internal/limits"
)

// Plugin runs a C test written against native/contend_plugin.h, loaded
// with dlopen in the repetition's child. Its runner is native/plugin.c.
var Plugin = &Workload{
	Name:       "plugin",
	Summary:    "your own C test, built as a shared object against contend_plugin.h",
	Provenance: "contend's plugin ABI (contend port --header), will-it-scale's shape: the runner owns the workers (threads or processes), start gate, clock and counters",
	Doc: `Loads --so (built with cc -O2 -fPIC -shared) in each repetition's child and
runs its contend_worker in --threads workers, created by contend's runner in
C, held at a start gate until all are ready, optionally pinned (--pin: worker
i on the i-th CPU this process may use, modulo their number). The plugin
declares its mode with CONTEND_PLUGIN: in duration mode the workers loop
until stopped after --duration, counting iterations (ops_per_sec is the
primary metric); in fixed mode they do a fixed amount of work and the runner
times the start gate to the last return (time is primary). Extra counters
the plugin names are summed over the workers and reported under their names.

--workers threads (the default) runs the workers as threads of the child;
--workers processes forks them from C after contend_setup, as
will-it-scale's _processes builds do. Then the plugin's state is each
process's own copy-on-write copy: a static or malloc'ed lock is per process
and uncontended, and contend_teardown (in the parent) sees none of the
workers' writes. A plugin shares memory between processes only by mapping
it MAP_SHARED in contend_setup. The counters, the stop flag and the start
gate are in the runner's shared memory; the clock, the metrics and their
meaning are the same in both modes, so results compare across them. A worker
process that crashes fails the repetition naming its signal; the other
workers are killed.

Start with 'contend port --template NAME'; the contract is printed by
'contend port --header'. A crashing plugin kills the repetition's child with
its signal (or, with --workers processes, its worker); the repetition is
recorded as failed, naming the signal.`,
	Metrics: []Metric{
		{Name: "ops_per_sec", Unit: "ops/s", Better: Higher, Desc: "iterations of all workers / time"},
		{Name: "iterations", Unit: "count", Better: Either, Desc: "iterations counted by all workers"},
		{Name: "time", Unit: "ns", Better: Lower, Desc: "start gate opened .. last worker returned"},
		{Name: "fairness", Unit: "ratio", Better: Higher, Desc: "fewest / most iterations of one worker (1 = fair)"},
	},
	Primary: "ops_per_sec",
	Funcs: Typed[bind.PluginParams]{
		Check: checkPlugin,
		Run:   runPlugin,
		Timeout: func(p *bind.PluginParams) time.Duration {
			if info, err := ReadPluginInfo(p.SO.String()); err == nil && info.Mode == bind.PluginFixed {
				return 10 * time.Minute
			}
			return p.DurationNs.Duration() + time.Minute
		},
		ForValues: func(p *bind.PluginParams) ([]Metric, string, error) {
			info, err := ReadPluginInfo(p.SO.String())
			if err != nil {
				return nil, "", &UsageError{Msg: err.Error()}
			}
			var ms []Metric
			for _, c := range info.Counters {
				ms = append(ms, Metric{Name: c, Unit: "count", Better: Either, Desc: "plugin counter " + c + ", summed over the workers"})
			}
			if info.Mode == bind.PluginFixed {
				return ms, "time", nil
			}
			return ms, "ops_per_sec", nil
		},
	},
}

func init() { Register(Plugin) }

// PluginInfo is what a plugin declares with CONTEND_PLUGIN, read from the
// file without loading it.
type PluginInfo struct {
	ABI         uint32
	Mode        int
	Description string
	Counters    []string
}

const pluginMagic = 0x6374706c

// ReadPluginInfo reads the contend_plugin description of the shared
// object at path from its ELF symbol table and data, without running any
// of its code, and checks what the child's dlopen would: the description,
// its ABI version and mode, the worker, the counter names.
func ReadPluginInfo(path string) (PluginInfo, error) {
	var info PluginInfo
	if _, err := os.Stat(path); err != nil {
		return info, fmt.Errorf("--so %s: no such file", path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return info, fmt.Errorf("--so %s: not a shared object (%v); build it with cc -O2 -fPIC -shared", path, err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return info, fmt.Errorf("--so %s: an executable, not a shared object; build it with cc -O2 -fPIC -shared", path)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return info, fmt.Errorf("--so %s: no dynamic symbols (%v)", path, err)
	}
	var desc, worker *elf.Symbol
	for i := range syms {
		s := &syms[i]
		if s.Section == elf.SHN_UNDEF {
			continue
		}
		switch s.Name {
		case "contend_plugin":
			desc = s
		case "contend_worker":
			worker = s
		}
	}
	if desc == nil {
		return info, fmt.Errorf("--so %s defines no contend_plugin: add CONTEND_PLUGIN(mode, \"description\") (see contend port --header)", path)
	}
	if worker == nil {
		return info, fmt.Errorf("--so %s defines no contend_worker(void *state, unsigned id, struct contend_thread *t)", path)
	}
	const size = 16 + 96 + bind.PluginMaxCounters*32
	if desc.Size < size || int(desc.Section) >= len(f.Sections) {
		return info, fmt.Errorf("--so %s: contend_plugin has %d bytes, not a contend plugin description (%d bytes)", path, desc.Size, size)
	}
	sec := f.Sections[desc.Section]
	if sec.Type != elf.SHT_PROGBITS {
		return info, fmt.Errorf("--so %s: contend_plugin is not initialised data; define it with CONTEND_PLUGIN", path)
	}
	b := make([]byte, size)
	if _, err := sec.ReadAt(b, int64(desc.Value-sec.Addr)); err != nil {
		return info, fmt.Errorf("--so %s: cannot read contend_plugin: %v", path, err)
	}
	bo := f.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	if bo.Uint32(b[0:]) != pluginMagic {
		return info, fmt.Errorf("--so %s: contend_plugin is not a contend plugin description (bad magic)", path)
	}
	info.ABI = bo.Uint32(b[4:])
	if info.ABI != bind.PluginABI {
		return info, fmt.Errorf("--so %s was built for plugin ABI %d, this contend runs ABI %d: rebuild it with the header of contend port --header", path, info.ABI, bind.PluginABI)
	}
	info.Mode = int(bo.Uint32(b[8:]))
	if info.Mode != bind.PluginDuration && info.Mode != bind.PluginFixed {
		return info, fmt.Errorf("--so %s: mode %d is neither CONTEND_DURATION nor CONTEND_FIXED", path, info.Mode)
	}
	info.Description = cstr(b[16 : 16+96])
	for i := 0; i < bind.PluginMaxCounters; i++ {
		off := 16 + 96 + 32*i
		name := cstr(b[off : off+32])
		if name == "" {
			break
		}
		if !counterName(name) || bytes.IndexByte(b[off:off+32], 0) < 0 {
			return info, fmt.Errorf("--so %s: counter %q: use a-z, 0-9 and _, starting with a letter, at most 31 bytes", path, name)
		}
		if reservedPluginMetric(name) {
			return info, fmt.Errorf("--so %s: counter %q has the name of a metric contend reports; rename it", path, name)
		}
		info.Counters = append(info.Counters, name)
	}
	return info, nil
}

func reservedPluginMetric(name string) bool {
	for _, m := range append([]string{"ops_per_sec", "iterations", "time", "fairness"}, processMetricNames()...) {
		if m == name {
			return true
		}
	}
	return false
}

func processMetricNames() []string {
	var ns []string
	for _, m := range ProcessMetrics {
		ns = append(ns, m.Name)
	}
	return ns
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func counterName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') }) < 0
}

func checkPlugin(p *bind.PluginParams, m limits.Machine) ([]string, error) {
	if _, err := ReadPluginInfo(p.SO.String()); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if p.Processes == bind.WorkersProcesses {
		if err := m.CheckTasks("threads", int64(p.Threads)); err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
		return nil, nil
	}
	return checkThreads("threads", int64(p.Threads), m.ThreadStack, m)
}

func runPlugin(p *bind.PluginParams, rt Runtime) (Sample, error) {
	if so := p.SO.String(); !strings.Contains(so, "/") {
		p.SO = bind.CStringOf("./" + so) // dlopen searches the library path for a bare name
	}
	p.ReportFD = int32(rt.ReportFD)
	r, err := bind.Plugin(*p)
	if err != nil {
		return Sample{}, err
	}
	if r.ElapsedNs == 0 {
		return Sample{}, errors.New("plugin: the runner measured no time")
	}
	s := Sample{Metrics: map[string]float64{
		"time":        float64(r.ElapsedNs),
		"iterations":  float64(r.Iterations),
		"ops_per_sec": float64(r.Iterations) / (float64(r.ElapsedNs) / 1e9),
	}, Series: map[string][]float64{}}
	lo, hi := ^uint64(0), uint64(0)
	for _, x := range r.PerThread {
		lo, hi = min(lo, x), max(hi, x)
		s.Series["iterations"] = append(s.Series["iterations"], float64(x))
	}
	if hi > 0 {
		s.Metrics["fairness"] = float64(lo) / float64(hi)
	}
	for i, name := range r.Counters {
		s.Metrics[name] = float64(r.CounterTotals[i])
	}
	if r.Mode == bind.PluginDuration && r.Iterations == 0 {
		s.Notes = append(s.Notes, "no iteration counted: does contend_worker add to *t->iterations?")
	}
	return s, nil
}
