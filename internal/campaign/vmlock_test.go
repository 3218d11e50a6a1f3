package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"contend/internal/lock"
	"contend/internal/vm"
)

// TestRunVMHoldsTheLock: every guest of a --vm campaign runs holding the
// machine-wide benchmark lock, as a host run does; a campaign that finds
// it held waits for it (saying who holds it) and boots nothing, until
// interrupted.
func TestRunVMHoldsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	t.Setenv("CONTEND_LOCK", path)
	o := vmOptions(t, t.TempDir())
	o.Boots = 2
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(p.Dir, p); err != nil {
		t.Fatal(err)
	}
	f := &fakeBoots{t: t}
	var unlocked []int
	boot := func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		if h, held := lock.Current(path); !held || h.Pid != os.Getpid() {
			unlocked = append(unlocked, f.n+1)
		}
		return f.boot(ctx, g, c)
	}
	if err := RunVM(context.Background(), p.Dir, RunVMOptions{Boot: boot, Load: func() float64 { return 0 }}); err != nil {
		t.Fatal(err)
	}
	if f.n != 4 || len(unlocked) > 0 {
		t.Errorf("%d boots; boots %v ran without holding the benchmark lock %s", f.n, unlocked, path)
	}
	if _, held := lock.Current(path); held {
		t.Errorf("the lock is still held after the campaign")
	}

	// Another benchmark holds the lock: the next campaign waits.
	other, err := lock.Acquire(context.Background(), path, []string{"contend", "run", "mutex"}, lock.Options{NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	p2, err := NewPlan(vmOptions(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(p2.Dir, p2); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &cancelOn{word: "waiting: another benchmark holds " + path, cancel: cancel}
	f2 := &fakeBoots{t: t}
	err = RunVM(ctx, p2.Dir, RunVMOptions{Boot: f2.boot, Log: log, Load: func() float64 { return 0 }})
	if !errors.Is(err, ErrStopped) || f2.n != 0 {
		t.Errorf("with the lock held: %v after %d boots, want stopped before the first", err, f2.n)
	}
	if !strings.Contains(log.String(), "contend run mutex") {
		t.Errorf("the log does not name the holder: %s", log.String())
	}
}

// cancelOn is a log that cancels when a line with word is written.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	word   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.word) {
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
