package controller

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/flinkop/flinkop/operator/config"
	"github.com/flinkop/flinkop/operator/decide"
)

// exceptionMarks keep, per resource, the newest exception of its job already reported as a
// JobException Event (decide.JobExceptionEvents). They live as long as the operator process
// does, as the Apache operator's cache of them.
type exceptionMarks struct {
	mu    sync.Mutex
	marks map[types.NamespacedName]decide.ExceptionMark
}

// events are the JobException Events of job's new exceptions, and the call that remembers them
// as reported: made once they are recorded, so a reconcile that stops before its Events (a
// snapshot slot taken, a failed action) reports them next time.
func (e *exceptionMarks) events(key types.NamespacedName, job *decide.JobObservation, opts config.Options) ([]decide.Event, func()) {
	if job == nil {
		return nil, func() {}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	events, mark := decide.JobExceptionEvents(e.marks[key], job, opts.ExceptionEventsLimit, opts.ExceptionStackLines)
	return events, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.marks == nil {
			e.marks = map[types.NamespacedName]decide.ExceptionMark{}
		}
		e.marks[key] = mark
	}
}

// forget drops a deleted resource's mark.
func (e *exceptionMarks) forget(key types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.marks, key)
}
