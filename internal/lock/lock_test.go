package lock

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBusyNoWaitNamesTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	l, err := Acquire(context.Background(), path, []string{"contend", "run", "faultme"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, held := Current(path)
	if !held || h.Pid != os.Getpid() || h.Command != "contend run faultme" || h.Since.IsZero() {
		t.Errorf("Current: %+v %v", h, held)
	}
	_, err = Acquire(context.Background(), path, []string{"second"}, Options{NoWait: true})
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) || be.Holder.Pid != os.Getpid() || !strings.Contains(err.Error(), "contend run faultme") {
		t.Fatalf("second Acquire with NoWait: %v", err)
	}
	l.Release()
	if _, held := Current(path); held {
		t.Error("still held after Release")
	}
	l2, err := Acquire(context.Background(), path, []string{"third"}, Options{NoWait: true})
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l2.Release()
}

// TestWaiterRunsAfterHolder: the second Acquire waits, says whom for,
// and gets the lock only after the first lets it go.
func TestWaiterRunsAfterHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	first, err := Acquire(context.Background(), path, []string{"first"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 4)
	go func() {
		l, err := Acquire(context.Background(), path, []string{"second"}, Options{
			Poll:    5 * time.Millisecond,
			Waiting: func(h Holder) { events <- "waiting for " + h.Command },
		})
		if err != nil {
			events <- "error " + err.Error()
			return
		}
		events <- "second holds it"
		l.Release()
	}()
	if e := <-events; e != "waiting for first" {
		t.Fatalf("first event %q, want waiting for first", e)
	}
	events <- "first releases"
	first.Release()
	if e := <-events; e != "first releases" {
		t.Fatalf("event %q", e)
	}
	if e := <-events; e != "second holds it" {
		t.Fatalf("event %q, want second holds it", e)
	}
}

func TestWaitIsCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	l, err := Acquire(context.Background(), path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Acquire(ctx, path, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}

// TestKilledHolderReleases: a holder killed with SIGKILL leaves the lock
// free (the kernel drops an flock with its last descriptor).
func TestKilledHolderReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contend.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHolderHelper$")
	cmd.Env = append(os.Environ(), "LOCK_HELPER_PATH="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q", line)
	}
	if h, held := Current(path); !held || h.Pid != cmd.Process.Pid {
		t.Errorf("Current while the helper holds it: %+v %v", h, held)
	}
	if _, err := Acquire(context.Background(), path, nil, Options{NoWait: true}); !errors.Is(err, ErrBusy) {
		t.Errorf("Acquire while held: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := Acquire(context.Background(), path, nil, Options{NoWait: true})
	if err != nil {
		t.Fatalf("after SIGKILL of the holder: %v", err)
	}
	l.Release()
}

// TestHolderHelper is TestKilledHolderReleases's holder.
func TestHolderHelper(t *testing.T) {
	path := os.Getenv("LOCK_HELPER_PATH")
	if path == "" {
		t.Skip("helper of TestKilledHolderReleases")
	}
	if _, err := Acquire(context.Background(), path, []string{"helper"}, Options{}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Minute)
}

func TestPathFromEnvironment(t *testing.T) {
	t.Setenv("CONTEND_LOCK", "off")
	if p := Path(); p != "" {
		t.Errorf("CONTEND_LOCK=off: %q", p)
	}
	t.Setenv("CONTEND_LOCK", "/tmp/x.lock")
	if p := Path(); p != "/tmp/x.lock" {
		t.Errorf("CONTEND_LOCK=/tmp/x.lock: %q", p)
	}
	t.Setenv("CONTEND_LOCK", "")
	if p := Path(); p != DefaultPath && !strings.HasSuffix(p, "/contend.lock") {
		t.Errorf("default: %q", p)
	}
}
