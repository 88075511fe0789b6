package act

import (
	"errors"
	"sync"
)

// ErrJarFetchBusy is returned when no jar fetch slot is free for the namespace: try again
// shortly.
var ErrJarFetchBusy = errors.New("no jar fetch slot is free")

// FetchSlots bound the jar fetches under way at once: Total in all, and one per namespace, so
// that slow jar servers never hold every reconcile worker and one tenant's jobs never hold
// every slot.
type FetchSlots struct {
	mu    sync.Mutex
	total int
	busy  map[string]bool // namespaces with a fetch under way
}

// NewFetchSlots returns total slots (at most one per namespace).
func NewFetchSlots(total int) *FetchSlots {
	return &FetchSlots{total: total, busy: map[string]bool{}}
}

// take takes a slot for namespace; the returned function gives it back. ErrJarFetchBusy when
// every slot, or the namespace's, is taken.
func (f *FetchSlots) take(namespace string) (func(), error) {
	if f == nil {
		return func() {}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy[namespace] || len(f.busy) >= f.total {
		return nil, ErrJarFetchBusy
	}
	f.busy[namespace] = true
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.busy, namespace)
	}, nil
}

// Busy counts the slots taken.
func (f *FetchSlots) Busy() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.busy)
}
