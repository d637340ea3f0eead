package model

import (
	"context"
	"errors"
)

// ErrNotStored is the error of a call asked of the cache alone (StoredOnly) whose reply the
// cache does not hold, or that reached a client with no cache before it: nothing was asked.
var ErrNotStored = errors.New("reply not in the cache, and not asked for")

type storedOnlyKey struct{}

// StoredOnly returns ctx marked so that a call made under it is answered from the cache alone
// (cache.Client): a reply an earlier run stored, or ErrNotStored, never a call to a server. A
// judge that has used up its re-asks of unparsable replies reads on this way through the later
// samples an earlier run had asked (a --retry-errors run's), without asking anything new.
func StoredOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, storedOnlyKey{}, true)
}

// IsStoredOnly reports whether ctx was marked by StoredOnly. Every client that would reach a
// server or answer by itself returns ErrNotStored under it, so that a call asked of the cache
// alone stays one where no cache stands before it.
func IsStoredOnly(ctx context.Context) bool {
	v, _ := ctx.Value(storedOnlyKey{}).(bool)
	return v
}
