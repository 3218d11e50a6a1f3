package bind

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixedCPUSet matches C that holds CPUs 0-1023 only: a cpu_set_t variable
// (not a pointer to a CPU_ALLOC'ed set), an array of CPU_SETSIZE, or the
// fixed-size macros.
var fixedCPUSet = regexp.MustCompile(`cpu_set_t\s+[A-Za-z_]|\[CPU_SETSIZE\]|\bCPU_(SET|ISSET|ZERO|COUNT|CLR)\(|sizeof\(cpu_set_t\)`)

// TestNativeCPUSetsAnySize checks that no C file of native/ (the
// workloads, the duration runner, will-it-scale's leader) uses a fixed
// cpu_set_t: on a machine of more than 1024 CPUs it would pin to the
// wrong CPU or fail. Sets are CPU_ALLOC'ed (ct_allowed_cpus, ct_cpu_one).
func TestNativeCPUSetsAnySize(t *testing.T) {
	files, _ := filepath.Glob("../native/*.[ch]")
	if len(files) < 10 {
		t.Fatalf("native/ has %d C files, want the workloads' (run from bind/)", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "*") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "//") {
				continue // a comment
			}
			if m := fixedCPUSet.FindString(line); m != "" {
				t.Errorf("%s:%d: %q: a CPU set of 1024 CPUs; use CPU_ALLOC and the _S macros", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
