package harness

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"contend/internal/results"
)

func TestRepeatAndStaticPlan(t *testing.T) {
	next := StaticPlan(Repeat(3, 2))
	var got []string
	for {
		s, ok := next(&results.File{})
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%v/%d", s.Warmup, s.Round))
	}
	if strings.Join(got, " ") != "true/0 true/0 false/0 false/1 false/2" {
		t.Errorf("plan %v", got)
	}
}

func TestDescribeExit(t *testing.T) {
	err := exec.Command("/bin/sh", "-c", "kill -SEGV $$").Run()
	if got := describeExit(err, "line one\nlast words"); !strings.Contains(got, "killed by signal SIGSEGV") || !strings.HasSuffix(got, ": last words") {
		t.Errorf("describeExit = %q", got)
	}
	err = exec.Command("/bin/sh", "-c", "exit 3").Run()
	if got := describeExit(err, ""); got != "the child exited with status 3" {
		t.Errorf("describeExit = %q", got)
	}
	if got := describeExit(errors.New("boom"), ""); got != "boom" {
		t.Errorf("describeExit = %q", got)
	}
}
