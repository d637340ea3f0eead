package command

import (
	"os"
	"sync"
)

// barLine is what a progress bar draws on: the terminal, while this process holds the terminal's
// bar lock (an exclusive flock on the terminal device, opened afresh so that each process has a
// lock of its own). The stages of a pipeline share one terminal line on stderr, and each would
// draw its bar there, over the others', flickering; with the lock one draws at a time: the first
// to ask, until it finishes its bar (EndBar releases the lock), then the next that asks. A write
// made without the lock is dropped, as the bar redraws whole at its next update. A stage whose
// records go to the terminal takes the lock for its whole run (holdBarLine), so that no stage
// before it draws a bar among its records. Where no lock can be had (no such device, or a system
// without flock) every bar draws, as before.
type barLine struct {
	f    *os.File // the terminal drawn on
	once sync.Once
	mu   sync.Mutex
	lock *os.File // the terminal opened for the lock; nil when it could not be
	held bool
}

func (b *barLine) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.own() {
		return len(p), nil
	}
	return b.f.Write(p)
}

// own reports whether this process may draw: it holds the lock, or takes it now, or there is no
// lock to take. b.mu is held.
func (b *barLine) own() bool {
	b.once.Do(func() { b.lock = openLock(b.f) })
	if b.held || b.lock == nil {
		return true
	}
	b.held = tryLock(b.lock)
	return b.held
}

// release gives the lock up, for the next stage's bar; the terminal line is its to draw on.
func (b *barLine) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held {
		unlock(b.lock)
		b.held = false
	}
}

// holdBarLine takes the bar lock of the terminal f for the rest of the process, waiting for it
// on a goroutine of its own: the records this process writes go to that terminal, and a bar that
// a stage before it draws would break their lines. It returns the file it locks, or nil.
func holdBarLine(f *os.File) *os.File {
	lock := openLock(f)
	if lock != nil {
		go waitLock(int(lock.Fd())) // the descriptor taken here, not read from the file on the goroutine
	}
	return lock
}
