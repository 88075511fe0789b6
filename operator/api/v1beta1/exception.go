package v1beta1

import (
	"encoding/json"
	"strings"
)

// FlinkResourceException is status.error as Apache's operator writes it for FlinkDeployments
// and FlinkSessionJobs: a JSON object that tools parse. Type names the error's kind (a Java
// class name, as Apache's: its operator exceptions, or the Flink exception a job failed
// with), Message says what happened, AdditionalMetadata holds "reason" (the Warning Event's
// reason), "httpResponseCode" and "labels" (kubernetes.operator.exception.label.mapper), and
// ThrowableList the causes (each without stack trace or causes of its own). It is the
// content of a status string, not an API type: no deep copy is generated.
// +kubebuilder:object:generate=false
type FlinkResourceException struct {
	Type               string                   `json:"type,omitempty"`
	Message            string                   `json:"message,omitempty"`
	StackTrace         string                   `json:"stackTrace,omitempty"`
	AdditionalMetadata map[string]any           `json:"additionalMetadata"`
	ThrowableList      []FlinkResourceException `json:"throwableList,omitempty"`
}

// MaxErrorBytes bounds status.error's JSON: a stack trace, then the causes, are left out of
// one that would be longer.
const MaxErrorBytes = 16 << 10

// ParseError reads status.error: Apache's JSON, or (ok false) a plain message, which older
// operators and FlinkBlueGreenDeployments write.
func ParseError(statusError string) (e FlinkResourceException, ok bool) {
	if !strings.HasPrefix(statusError, "{") {
		return FlinkResourceException{Message: statusError}, false
	}
	if err := json.Unmarshal([]byte(statusError), &e); err != nil || e.Type == "" {
		return FlinkResourceException{Message: statusError}, false
	}
	return e, true
}

// ErrorMessage is the message of status.error, JSON or plain ("" when there is none).
func ErrorMessage(statusError string) string {
	e, _ := ParseError(statusError)
	return e.Message
}
