package flink

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrAnswerBudget is returned when an answer could not be read because the REST answers
// being read already hold the whole budget, or the tenant's share of it: the call is an error,
// retried later, and no JobManager can make the operator hold more.
var ErrAnswerBudget = errors.New("REST answer budget exhausted")

// ErrAnswerTooLarge is returned when an answer is larger than its endpoint's limit
// (AnswerLimit).
var ErrAnswerTooLarge = errors.New("answer larger than its endpoint's limit")

// FreeAnswerBytes of each answer are read without asking the budget: nearly every answer is
// smaller, and the calls under way at once are bounded by the reconcile workers, so these take
// at most workers × FreeAnswerBytes.
const FreeAnswerBytes = 64 << 10

// budgetChunk is how much an answer reader takes from the budget at a time.
const budgetChunk = 256 << 10

// Default sizes of an AnswerBudget (the --rest-answer-budget flag and its per-namespace share).
const (
	DefaultAnswerBudget       = 48 << 20
	DefaultTenantAnswerBudget = 16 << 20
)

// AnswerBudget bounds the bytes of REST answers read and not yet decoded, beyond each
// answer's first FreeAnswerBytes: Total across every client sharing it, PerTenant for the
// clients of one tenant (a namespace). A reader that cannot take its next chunk fails at once
// (ErrAnswerBudget) rather than waiting, so readers never wait on each other. Safe for
// concurrent use; the zero of a nil *AnswerBudget is no budget.
type AnswerBudget struct {
	mu               sync.Mutex
	total, perTenant int64
	used             int64
	byTenant         map[string]int64
	refused          int64
}

// NewAnswerBudget returns a budget of total bytes, at most perTenant of them per tenant.
func NewAnswerBudget(total, perTenant int64) *AnswerBudget {
	return &AnswerBudget{total: total, perTenant: min(perTenant, total), byTenant: map[string]int64{}}
}

// take takes n bytes for tenant, or none (false).
func (b *AnswerBudget) take(tenant string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total || b.byTenant[tenant]+n > b.perTenant {
		b.refused++
		return false
	}
	b.used += n
	b.byTenant[tenant] += n
	return true
}

// give returns n bytes of tenant's.
func (b *AnswerBudget) give(tenant string, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byTenant[tenant] -= n; b.byTenant[tenant] <= 0 {
		delete(b.byTenant, tenant)
	}
}

// Used is the number of bytes taken now, in all and by tenant; Refused counts the chunks
// refused since the budget was made.
func (b *AnswerBudget) Used(tenant string) (total, ofTenant, refused int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.byTenant[tenant], b.refused
}

// answerReader reads one answer: at most limit bytes (then ErrAnswerTooLarge), every byte past
// FreeAnswerBytes taken from budget first. Release gives back what it took.
type answerReader struct {
	r      io.Reader
	limit  int64
	read   int64
	budget *AnswerBudget
	tenant string
	held   int64 // bytes taken from budget
}

func (a *answerReader) Read(p []byte) (int, error) {
	if a.read >= a.limit+1 {
		return 0, fmt.Errorf("%w (%d bytes)", ErrAnswerTooLarge, a.limit)
	}
	// One byte past the limit is read to tell "exactly the limit" from "more".
	p = p[:min(int64(len(p)), a.limit+1-a.read)]
	if covered := a.held + FreeAnswerBytes; a.budget != nil && a.read+int64(len(p)) > covered {
		chunk := min(budgetChunk, a.limit+1-covered)
		if !a.budget.take(a.tenant, chunk) {
			return 0, ErrAnswerBudget
		}
		a.held += chunk
		p = p[:min(int64(len(p)), covered+chunk-a.read)]
	}
	n, err := a.r.Read(p)
	a.read += int64(n)
	if a.read > a.limit {
		return n, fmt.Errorf("%w (%d bytes)", ErrAnswerTooLarge, a.limit)
	}
	return n, err
}

// Release gives back the bytes taken from the budget.
func (a *answerReader) Release() {
	if a.budget != nil {
		a.budget.give(a.tenant, a.held)
		a.held = 0
	}
}
