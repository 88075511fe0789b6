package act

import "k8s.io/apimachinery/pkg/types"

// Cancel stops the fetch under way for job key, if any (its job is being deleted or is
// gone): its context is cancelled and its slot freed at once, for the next in line.
func (s *FetchSlots) Cancel(key types.NamespacedName) {
	s.cancelIf(key, func(FetchJob) bool { return true })
}

// CancelOutdated stops the fetch under way for job key when it is for another generation than
// generation (the job's spec changed since it began), as Cancel does.
func (s *FetchSlots) CancelOutdated(key types.NamespacedName, generation int64) {
	s.cancelIf(key, func(j FetchJob) bool { return j.Generation != generation })
}

func (s *FetchSlots) cancelIf(key types.NamespacedName, stale func(FetchJob) bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	f := s.fetches[key]
	if f == nil || !stale(f.job) {
		s.mu.Unlock()
		return
	}
	delete(s.fetches, key)
	woken := s.release(f)
	s.mu.Unlock()
	f.cancel(ErrFetchCancelled)
	s.wakeUp(woken)
}

// Forget drops everything held for a deleted job: its fetch is cancelled, the slot kept for
// it passes on, and its place in line and its back-off are dropped.
func (s *FetchSlots) Forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.Cancel(key)
	s.mu.Lock()
	var woken []types.NamespacedName
	if _, ok := s.promised[key]; ok {
		woken = s.unpromise(key)
	}
	s.line.leave(key)
	delete(s.asking, key)
	delete(s.failed, key)
	s.mu.Unlock()
	s.waitRetry.Forget(key)
	s.wakeUp(woken)
}
