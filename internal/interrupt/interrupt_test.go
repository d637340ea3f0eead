package interrupt

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestFinish: Begin counts the calls in flight until the finish request, which reports them and
// after which Begin refuses every call; Waiting's context ends with it; a context without a
// request admits everything.
func TestFinish(t *testing.T) {
	ctx, finish := WithFinish(context.Background())
	end1, ok1 := Begin(ctx)
	end2, ok2 := Begin(ctx)
	end3, ok3 := Begin(ctx)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("Begin before finishing: %v %v %v, want every call admitted", ok1, ok2, ok3)
	}
	end3()
	end3() // a second end changes nothing
	wait, cancel := Waiting(ctx)
	defer cancel()
	if Asked(ctx) || Err(ctx) != nil || wait.Err() != nil {
		t.Fatalf("before finishing: Asked %v, Err %v, waiting context %v", Asked(ctx), Err(ctx), wait.Err())
	}
	if n := finish(); n != 2 {
		t.Errorf("finish() = %d calls in flight, want 2", n)
	}
	if !Asked(ctx) || Err(ctx) != ErrInterrupted {
		t.Errorf("after finish(): Asked %v, Err %v; want true, ErrInterrupted", Asked(ctx), Err(ctx))
	}
	select { // Waiting's context ends with the request
	case <-wait.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Waiting's context still open 10 s after finish()")
	}
	if ctx.Err() != nil {
		t.Errorf("the run's context itself ended with the finish request: %v", ctx.Err())
	}
	if _, ok := Begin(ctx); ok {
		t.Error("Begin after finish() admitted a call")
	}
	end1()
	end2()
	if n := finish(); n != 0 {
		t.Errorf("finish() again = %d calls in flight, want 0 once both ended", n)
	}
	if !errors.Is(ErrInterrupted, context.Canceled) {
		t.Error("ErrInterrupted does not read as context.Canceled (exit 130)")
	}

	plain := context.Background()
	if _, ok := Begin(plain); !ok || Asked(plain) {
		t.Error("a context without a finish request refused a call or reads as finishing")
	}
}

// TestNoCalls: a run declares that it makes no call, under its name, for the command layer to
// read; a context without a finish request takes the declaration and says nothing.
func TestNoCalls(t *testing.T) {
	ctx, _ := WithFinish(context.Background())
	if name, ok := NoCallsName(ctx); ok || name != "" {
		t.Errorf("NoCallsName before NoCalls = %q, %v; want \"\", false", name, ok)
	}
	NoCalls(ctx, "qa-judge agree")
	if name, ok := NoCallsName(ctx); !ok || name != "qa-judge agree" {
		t.Errorf("NoCallsName after NoCalls = %q, %v; want %q, true", name, ok, "qa-judge agree")
	}
	NoCalls(context.Background(), "qa-judge agree") // no request: nothing to declare to
	if name, ok := NoCallsName(context.Background()); ok || name != "" {
		t.Errorf("NoCallsName of a plain context = %q, %v; want \"\", false", name, ok)
	}
}

// TestStored: Stored's channel is closed at once when no reply is being got for storing, and
// otherwise once the last of those under way when it was asked for is done; a context without a
// finish request waits for nothing.
func TestStored(t *testing.T) {
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	ctx, _ := WithFinish(context.Background())
	if !closed(Stored(ctx)) {
		t.Error("Stored with nothing being stored: open, want closed")
	}
	done1, done2 := Storing(ctx), Storing(ctx)
	c := Stored(ctx)
	done1()
	done1() // a second done changes nothing
	if closed(c) {
		t.Error("Stored with one reply still to store: closed, want open")
	}
	done2()
	if !closed(c) {
		t.Error("Stored after the last reply was stored: open, want closed")
	}
	if !closed(Stored(ctx)) {
		t.Error("Stored asked for again after all were stored: open, want closed")
	}
	// A second round, of a single reply: the channels the first round closed are not closed again.
	done3 := Storing(ctx)
	c = Stored(ctx)
	if closed(c) {
		t.Error("Stored with the one reply of a second round still to store: closed, want open")
	}
	done3()
	if !closed(c) {
		t.Error("Stored after the second round was stored: open, want closed")
	}
	plain := context.Background()
	Storing(plain)() // done of a context without a finish request does nothing
	if !closed(Stored(plain)) {
		t.Error("Stored of a context without a finish request: open, want closed")
	}
}

// TestWaitingCancel: the cancel Waiting returns ends the wait's context, whether or not the run
// carries a finish request, and leaves the run's context as it was.
func TestWaitingCancel(t *testing.T) {
	finishing, _ := WithFinish(context.Background())
	for name, ctx := range map[string]context.Context{"with a finish request": finishing, "plain": context.Background()} {
		wait, cancel := Waiting(ctx)
		if err := wait.Err(); err != nil {
			t.Errorf("%s: the wait's context before cancel: %v, want nil", name, err)
		}
		cancel()
		if err := wait.Err(); err != context.Canceled || ctx.Err() != nil || Asked(ctx) {
			t.Errorf("%s: after cancel the wait's context is %v, want %v; the run's %v, asked %v, want nil, false",
				name, err, context.Canceled, ctx.Err(), Asked(ctx))
		}
	}
}

// TestFinishRefusesForGood: once asked to finish, Begin refuses every call, also after the calls
// that were in flight have ended; and a run both asked to finish and cancelled reads as cancelled.
func TestFinishRefusesForGood(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	ctx, finish := WithFinish(parent)
	end, _ := Begin(ctx)
	finish()
	end()
	for i := range 2 {
		if _, ok := Begin(ctx); ok {
			t.Errorf("Begin %d after finish() with no call in flight admitted a call", i)
		}
	}
	if err := Err(ctx); err != ErrInterrupted {
		t.Errorf("Err after finish() = %v, want %v", err, ErrInterrupted)
	}
	cancel()
	if err := Err(ctx); err != context.Canceled {
		t.Errorf("Err after finish() and cancel = %v, want %v", err, context.Canceled)
	}
}
