package controller

import (
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
)

// MaxEventMessage is the longest Event message (events.k8s.io note) the API server accepts,
// in bytes; a longer one is rejected and the Event is lost.
const MaxEventMessage = 1024

// TruncatedMark ends a message that was cut to MaxEventMessage.
const TruncatedMark = " …(truncated)"

// TruncateEventMessage cuts msg to MaxEventMessage bytes on a character boundary, marking the
// cut; status.error keeps the whole message.
func TruncateEventMessage(msg string) string {
	if len(msg) <= MaxEventMessage {
		return msg
	}
	cut := MaxEventMessage - len(TruncatedMark)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + TruncatedMark
}

// boundedEvents records Events with messages cut to the API limit.
type boundedEvents struct{ rec EventRecorder }

func (b boundedEvents) Event(obj runtime.Object, eventtype, reason, message string) {
	b.rec.Event(obj, eventtype, reason, TruncateEventMessage(message))
}
