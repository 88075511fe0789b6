package flink

import (
	"context"
	"errors"

	"github.com/flinkop/flinkop/operator/clip"
)

// Bounds of what a jar fetch's error says. Its message reaches status.error, an Event and log
// lines, and parts of it are the jar server's to choose: its reason phrase, the names in its
// TLS certificate, an HTTP/2 GOAWAY's debug data. A 4 MB reason phrase once made a status
// too large to write (status.error stayed empty) and about 1 GB of log in minutes.
const (
	// MaxServerText is the most of one text from the jar server (its status line) kept.
	MaxServerText = 256
	// MaxFetchError is the longest message of a fetch error.
	MaxFetchError = 1024
)

// fetchError is a failed fetch: a message cut to MaxFetchError, and the errors callers test
// for with errors.Is (not the whole chain, which would keep the server's text in memory as
// long as the error is kept).
type fetchError struct {
	msg   string
	kinds []error
}

func (e *fetchError) Error() string { return e.msg }

// Unwrap returns ErrJarFetch and the kinds of failure the fetch's error was.
func (e *fetchError) Unwrap() []error { return e.kinds }

// fetchErrorKinds are the errors a fetchError keeps from the error it replaces.
var fetchErrorKinds = []error{ErrFetchRefused, ErrJarTooLarge, ErrJarURI, context.Canceled, context.DeadlineExceeded}

// boundFetchError is err as a fetchError, wrapping ErrJarFetch.
func boundFetchError(err error) error {
	kinds := []error{ErrJarFetch}
	for _, k := range fetchErrorKinds {
		if errors.Is(err, k) {
			kinds = append(kinds, k)
		}
	}
	return &fetchError{msg: clip.String(ErrJarFetch.Error()+": "+err.Error(), MaxFetchError), kinds: kinds}
}
