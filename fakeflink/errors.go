package fakeflink

import (
	"errors"
	"fmt"
)

// ErrorKind classifies a core error; the REST adapter maps it to an HTTP status.
type ErrorKind int

// The error kinds.
const (
	KindNotFound    ErrorKind = iota + 1 // 404
	KindBadRequest                       // 400
	KindConflict                         // 409
	KindUnavailable                      // 503
	KindInternal                         // 500
)

// Error is an error of the fake JobManager, with Flink's message text.
type Error struct {
	Kind ErrorKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(kind ErrorKind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err, or KindInternal for errors that are not *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}
