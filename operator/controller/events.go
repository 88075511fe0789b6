package controller

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/flinkop/flinkop/operator/clip"
)

// MaxEventMessage is the longest Event message (events.k8s.io note) the API server accepts,
// in bytes; a longer one is rejected and the Event is lost.
const MaxEventMessage = 1024

// TruncatedMark ends a message that was cut to MaxEventMessage.
const TruncatedMark = clip.Mark

// TruncateEventMessage cuts msg to MaxEventMessage bytes on a character boundary, marking the
// cut, with invalid UTF-8 (a jar server's reason phrase, say) and control characters replaced.
func TruncateEventMessage(msg string) string { return clip.String(msg, MaxEventMessage) }

// boundedEvents records Events with messages cut to the API limit.
type boundedEvents struct{ rec EventRecorder }

func (b boundedEvents) Event(obj runtime.Object, eventtype, reason, message string) {
	b.rec.Event(obj, eventtype, reason, TruncateEventMessage(message))
}

// statusTooLarge says, in a Warning Event (Events are objects of their own), that a status
// write failed because the object would exceed the API server's size limit: status.error
// cannot say it then. The spec's own size is bounded by validation (MaxSpecBytes), so this
// means the spec itself is close to the limit.
func statusTooLarge(rec EventRecorder, obj runtime.Object, err error) {
	if apierrors.IsRequestEntityTooLargeError(err) {
		rec.Event(obj, corev1.EventTypeWarning, "StatusTooLarge",
			"status cannot be written: the object would exceed the API server's size limit; shrink the spec (flinkConfiguration, podTemplate): "+err.Error())
	}
}
