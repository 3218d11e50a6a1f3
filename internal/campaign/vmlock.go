package campaign

import (
	"context"
	"fmt"
	"os"
	"sync"

	"contend/internal/lock"
	"contend/internal/vm"
)

// BootFunc boots one guest and runs its command (a vm.Runner's Boot; a
// fake in tests).
type BootFunc = func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error)

// LockedBoot returns boot holding the machine-wide benchmark lock
// (internal/lock at lock.Path(): $CONTEND_LOCK, "off" for none) while
// each guest runs, as run.Do holds it for a host run: a guest and a host
// benchmark, or two guests (two --vm campaigns, a campaign and a bisect
// --vm), never run at once. A held lock is waited for (notice is told
// who holds it, once per holder) until ctx ends (ctx's error); a lock
// that cannot be opened is an error naming it. Both 'campaign run' and
// bisect --vm boot through it.
func LockedBoot(boot BootFunc, notice func(string)) BootFunc {
	if notice == nil {
		notice = func(string) {}
	}
	var once sync.Once
	return func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		path := lock.Path()
		if path == "" {
			return boot(ctx, g, c)
		}
		once.Do(func() {
			if note := lock.Note(path); note != "" {
				notice(note)
			}
		})
		l, err := lock.Acquire(ctx, path, os.Args, lock.Options{Waiting: func(h lock.Holder) {
			notice(fmt.Sprintf("waiting: another benchmark holds %s: %s (CONTEND_LOCK=off to boot beside it)", path, h))
		}})
		if err != nil {
			return nil, err
		}
		defer l.Release()
		return boot(ctx, g, c)
	}
}
