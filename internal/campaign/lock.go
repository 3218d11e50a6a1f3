package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"contend/internal/lock"
)

// LockFile is the lock a step holds on its campaign directory.
const LockFile = "step.lock"

// ErrBusy is returned by Step when another step holds the campaign.
var ErrBusy = errors.New("campaign busy")

// stepLock is a step's flock on DIR/step.lock. The step's run inherits the
// descriptor, so the lock stays held until the run is gone too: a step
// started while a killed step's run is still stopping is refused.
type stepLock struct {
	f *os.File
}

// lockDir takes the lock of campaign dir without waiting; when another
// step holds it the error (ErrBusy) names the holder's pids.
func lockDir(dir string) (*stepLock, error) {
	f, err := lock.TryFile(filepath.Join(dir, LockFile), fmt.Sprintf("step pid %d", os.Getpid()))
	var held *lock.HeldError
	if errors.As(err, &held) {
		holder := held.Holder
		if holder == "" {
			holder = "another step"
		}
		return nil, fmt.Errorf("%w: %s is in use by %s: wait for it to finish, or stop it ('contend campaign status %s' shows the progress)", ErrBusy, dir, holder, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the campaign %s: %w", dir, err)
	}
	return &stepLock{f: f}, nil
}

// note records who holds the lock, for the message of a refused step.
func (l *stepLock) note(holder string) {
	lock.Record(l.f, holder+"\n")
}

// unlock releases the lock (the descriptor a run inherited closes with it).
func (l *stepLock) unlock() {
	l.f.Close()
}
