package lkml

import (
	"strings"

	"contend/internal/evidence"
	"contend/internal/lazyre"
)

// vmstatFields are /proc/vmstat fields contend's system evidence records
// as k.sys.NAME over each repetition, as the robot's proc-vmstat.NAME are
// the change of the same field over its run.
var vmstatFields = map[string]bool{
	"pgfault": true, "pgmajfault": true, "pgfree": true, "pgreuse": true,
	"thp_fault_alloc": true, "thp_fault_fallback": true, "thp_split_pmd": true,
	"compact_stall": true, "compact_fail": true, "compact_success": true,
	"pgmigrate_success": true, "pgmigrate_fail": true, "pswpin": true, "pswpout": true,
	"numa_hint_faults": true, "numa_hint_faults_local": true, "numa_pages_migrated": true, "numa_pte_updates": true,
}

// timeStats are contend's process metrics (wait4 of the repetition's
// child) under the names of the robot's time.* stats (GNU time of the
// test), with the factor from contend's base unit to the robot's.
var timeStats = map[string]struct {
	name  string
	scale float64
}{
	"real":   {"time.elapsed_time", 1e-9},
	"user":   {"time.user_time", 1e-9},
	"sys":    {"time.system_time", 1e-9},
	"vcsw":   {"time.voluntary_context_switches", 1},
	"ivcsw":  {"time.involuntary_context_switches", 1},
	"minflt": {"time.minor_page_faults", 1},
	"majflt": {"time.major_page_faults", 1},
	"maxrss": {"time.maximum_resident_set_size", 1.0 / 1024},
}

// RobotName returns the robot's name of contend's metric of workload, and
// the factor that turns contend's value into the robot's unit: the
// will-it-scale stats (per_thread_ops, per_process_ops, workload), the
// time.* stats of the test process, proc-vmstat.* fields. A metric with no
// robot counterpart that means the same is contend.NAME (or
// contend.WORKLOAD.NAME for a workload's own), factor 1.
func RobotName(workload, metric string) (string, float64) {
	if workload == "wis" {
		switch metric {
		case "per_thread_ops", "per_process_ops":
			return "will-it-scale." + metric, 1
		case "ops_per_sec":
			return "will-it-scale.workload", 1
		}
	}
	if t, ok := timeStats[metric]; ok {
		return t.name, t.scale
	}
	if f, ok := strings.CutPrefix(metric, "k.sys."); ok && vmstatFields[f] {
		return "proc-vmstat." + f, 1
	}
	if strings.HasPrefix(metric, "k.") {
		return "contend." + metric, 1
	}
	return "contend." + workload + "." + metric, 1
}

// lkpSymbolSuffix is what lkp-tests' perf-profile parser strips from a
// symbol (fixup_symbol_name): the compiler's clone suffixes.
var lkpSymbolSuffix = lazyre.New(`\.(isra|constprop|part)\.[0-9]+`)

// ProfileName returns the robot's name of a profile share of contend
// (k.profile.self.SYMBOL, k.profile.children.SYMBOL) sampled with perf
// event event ("cycles" or "cpu-clock", evidence.ProfileEvent), as
// lkp-tests' perf-profile parser names them: perf-profile.self.EVENT.SYMBOL,
// EVENT the event perf report names with ':' made '-', the symbol without
// its .isra.N/.constprop.N/.part.N suffixes. The robot samples cycles:pp,
// "cycles-pp"; contend's cycles (no precise modifier: more skid, the same
// event) is named so, that its rows match the robot's; cpu-clock, a
// software event without precise levels, stays "cpu-clock". False for any
// other metric or an unknown event.
func ProfileName(metric, event string) (string, bool) {
	var kind, sym string
	if s, ok := strings.CutPrefix(metric, evidence.ProfileSelf); ok {
		kind, sym = "self", s
	} else if s, ok := strings.CutPrefix(metric, evidence.ProfileChildren); ok {
		kind, sym = "children", s
	} else {
		return "", false
	}
	switch event {
	case "cycles":
		event = "cycles-pp"
	case "cpu-clock":
	default:
		return "", false
	}
	return "perf-profile." + kind + "." + event + "." + lkpSymbolSuffix().ReplaceAllString(sym, ""), true
}
