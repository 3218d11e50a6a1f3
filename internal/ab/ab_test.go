package ab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"contend/internal/ipcown"
)

func TestOrders(t *testing.T) {
	if got := OrderAB.Sequence(3, 1); !reflect.DeepEqual(got, []int{0, 1, 0, 1, 0, 1}) {
		t.Errorf("ab: %v", got)
	}
	if got := OrderABBA.Sequence(4, 1); !reflect.DeepEqual(got, []int{0, 1, 1, 0, 0, 1, 1, 0}) {
		t.Errorf("abba: %v", got)
	}
	r1, r2 := OrderRandom.Sequence(50, 7), OrderRandom.Sequence(50, 7)
	if !reflect.DeepEqual(r1, r2) {
		t.Error("random order is not reproducible from its seed")
	}
	if reflect.DeepEqual(r1, OrderRandom.Sequence(50, 8)) {
		t.Error("random order does not depend on the seed")
	}
	flips := 0
	for i := 0; i < len(r1); i += 2 {
		if r1[i]+r1[i+1] != 1 {
			t.Fatalf("pair %d is not one A and one B: %v", i/2, r1[i:i+2])
		}
		if r1[i] == 1 {
			flips++
		}
	}
	if flips == 0 || flips == 50 {
		t.Errorf("random order never or always flips (%d of 50)", flips)
	}
	if _, err := ParseOrder("ba"); err == nil || !strings.Contains(err.Error(), "--order") {
		t.Errorf("ParseOrder(ba) = %v", err)
	}
}

func TestPrepare(t *testing.T) {
	out, err := Prepare(context.Background(), "side A prepare", "echo hello", time.Minute)
	if err != nil || out != "hello\n" {
		t.Errorf("echo: %q %v", out, err)
	}
	out, err = Prepare(context.Background(), "side B prepare", "echo broken >&2; exit 3", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "side B prepare") || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "broken") {
		t.Errorf("failing command: %q %v", out, err)
	}
	_, err = Prepare(context.Background(), "cleanup", "sleep 10", 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("slow command: %v", err)
	}
}

// fakeTracefs makes a tracefs-like tree with group lock of two events,
// contention_begin enabled and contention_end disabled.
func fakeTracefs(t *testing.T) string {
	root := t.TempDir()
	for ev, v := range map[string]string{"contention_begin": "1", "contention_end": "0"} {
		d := filepath.Join(root, "events", "lock", ev)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "enable"), []byte(v+"\n"), 0o644)
	}
	t.Setenv("CONTEND_TRACEFS", root)
	return root
}

func read(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestTraceSwitchRestores(t *testing.T) {
	root := fakeTracefs(t)
	begin := filepath.Join(root, "events/lock/contention_begin/enable")
	end := filepath.Join(root, "events/lock/contention_end/enable")
	ts, err := NewTraceSwitch("lock")
	if err != nil {
		t.Fatal(err)
	}
	ts.Set(true)
	if read(t, begin) != "1" || read(t, end) != "1" {
		t.Error("Set(true) did not enable every event")
	}
	ts.Set(false)
	if read(t, begin) != "0" || read(t, end) != "0" {
		t.Error("Set(false) did not disable every event")
	}
	if err := ts.Restore(); err != nil {
		t.Fatal(err)
	}
	if read(t, begin) != "1" || read(t, end) != "0" {
		t.Errorf("restore: begin %s end %s, want 1 0", read(t, begin), read(t, end))
	}
	one, err := NewTraceSwitch("lock:contention_end")
	if err != nil {
		t.Fatal(err)
	}
	one.Set(true)
	if read(t, begin) != "1" || read(t, end) != "1" {
		t.Error("single event not enabled")
	}
	one.Restore()
	if read(t, end) != "0" {
		t.Error("single event not restored")
	}
}

func TestTraceSwitchErrors(t *testing.T) {
	fakeTracefs(t)
	for spec, want := range map[string]string{
		"nosuch":      `no event group "nosuch"`,
		"lock:nosuch": `no event "nosuch" in group "lock"`,
		"lock:a:b":    "not accepted",
		"../x":        "not accepted",
	} {
		if _, err := NewTraceSwitch(spec); err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--trace-events: ") {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	t.Setenv("CONTEND_TRACEFS", filepath.Join(t.TempDir(), "none"))
	if _, err := NewTraceSwitch("lock"); err == nil || !strings.Contains(err.Error(), "mount -t tracefs") {
		t.Errorf("unmounted: %v", err)
	}
}

func TestTraceSwitchOneAtATime(t *testing.T) {
	fakeTracefs(t)
	first, err := NewTraceSwitch("lock")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTraceSwitch("lock:contention_end"); err == nil || !strings.Contains(err.Error(), "another contend run") {
		t.Errorf("second switch while the first holds tracefs: %v", err)
	}
	first.Restore()
	second, err := NewTraceSwitch("lock")
	if err != nil {
		t.Fatalf("after Restore: %v", err)
	}
	second.Restore()
}

// TestTraceSwitchJournal: the switch journals the state it found while
// it holds tracefs and removes the journal when it restores; a journal
// left by a dead contend (SIGKILL) is restored by the next switch before
// it reads the state, and said so in Recovered.
func TestTraceSwitchJournal(t *testing.T) {
	root := fakeTracefs(t)
	begin := filepath.Join(root, "events/lock/contention_begin/enable")
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewTraceSwitch("lock")
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := filepath.Glob(filepath.Join(jdir, fmt.Sprintf("tracefs-%d-*.json", os.Getpid())))
	if len(mine) != 1 {
		t.Fatalf("journal while switching: %v", mine)
	}
	ts.Set(false)
	// As if this process were killed now: the journal names a dead pid.
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(mine[0])
	b = []byte(strings.Replace(string(b), fmt.Sprintf(`"pid":%d,`, os.Getpid()), fmt.Sprintf(`"pid":%d,`, dead.Process.Pid), 1))
	left := filepath.Join(jdir, fmt.Sprintf("tracefs-%d-0.json", dead.Process.Pid))
	if err := os.WriteFile(left, b, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(left)
	if err := ts.Restore(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine[0]); !os.IsNotExist(err) {
		t.Errorf("journal %s left after Restore: %v", mine[0], err)
	}
	os.WriteFile(begin, []byte("0\n"), 0) // the killed run's setting
	next, err := NewTraceSwitch("lock")
	if err != nil {
		t.Fatal(err)
	}
	defer next.Restore()
	if !strings.Contains(next.Recovered, fmt.Sprintf("killed contend pid %d", dead.Process.Pid)) {
		t.Errorf("Recovered %q", next.Recovered)
	}
	if read(t, begin) != "1" || next.Saved()[begin] != "1" {
		t.Errorf("the killed run's setting was not restored before reading: begin %s, saved %q", read(t, begin), next.Saved()[begin])
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("restored journal %s left: %v", left, err)
	}
}
