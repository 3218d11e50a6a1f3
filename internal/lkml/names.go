package lkml

import "strings"

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
