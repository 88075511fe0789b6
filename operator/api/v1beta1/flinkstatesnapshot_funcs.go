package v1beta1

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxSnapshotPathLength bounds a snapshot's savepoint path: it is sent to Flink and written
// to status, labels never.
const MaxSnapshotPathLength = 1024

// DefaultDisposeOnDelete is SavepointSpec.DisposeOnDelete's default (Apache's).
const DefaultDisposeOnDelete = true

// EffectiveDisposeOnDelete is DisposeOnDelete or its default.
func (s *SavepointSpec) EffectiveDisposeOnDelete() bool {
	if s.DisposeOnDelete == nil {
		return DefaultDisposeOnDelete
	}
	return *s.DisposeOnDelete
}

// EffectiveFormatType is FormatType, CANONICAL when unset.
func (s *SavepointSpec) EffectiveFormatType() SavepointFormatType {
	if s.FormatType == "" {
		return "CANONICAL"
	}
	return s.FormatType
}

// AlreadyExists reports whether the snapshot records an existing savepoint.
func (s *FlinkStateSnapshotSpec) AlreadyExists() bool {
	return s.Savepoint != nil && s.Savepoint.AlreadyExists
}

// Validate checks the snapshot rules the CRD schema cannot express; the messages of the rules
// Apache has are Apache's. Stricter than Apache: an existing savepoint needs its path (a
// COMPLETED snapshot always has one), and paths are bounded and carry no credentials.
func (s *FlinkStateSnapshot) Validate() field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if (s.Spec.Savepoint == nil) == (s.Spec.Checkpoint == nil) {
		return field.ErrorList{field.Invalid(spec, "(savepoint and checkpoint)", "Exactly one of checkpoint or savepoint configurations has to be set.")}
	}
	if sp := s.Spec.Savepoint; sp != nil {
		path := spec.Child("savepoint", "path")
		if sp.AlreadyExists && sp.Path == "" {
			errs = append(errs, field.Required(path, "an existing savepoint (alreadyExists) needs its path"))
		}
		errs = append(errs, validateSnapshotPath(path, sp.Path)...)
		if sp.FormatType == "UNKNOWN" && !sp.AlreadyExists {
			errs = append(errs, field.NotSupported(spec.Child("savepoint", "formatType"), sp.FormatType, []string{"CANONICAL", "NATIVE"}))
		}
	}
	if b := s.Spec.BackoffLimit; b != nil && *b < -1 {
		errs = append(errs, field.Invalid(spec.Child("backoffLimit"), *b, "must be -1 (no limit), 0 (no retry) or more"))
	}
	ref := s.Spec.JobReference
	switch {
	case ref == nil || ref.Name == "":
		if !s.Spec.AlreadyExists() {
			errs = append(errs, field.Required(spec.Child("jobReference"), "Job reference must be supplied for this snapshot"))
		}
	case ref.Kind == "":
		errs = append(errs, field.Required(spec.Child("jobReference", "kind"), "FlinkDeployment or FlinkSessionJob"))
	default:
		for _, msg := range validation.IsDNS1123Subdomain(ref.Name) {
			errs = append(errs, field.Invalid(spec.Child("jobReference", "name"), ref.Name, msg))
		}
	}
	return errs
}

// validateSnapshotPath checks a savepoint path on its parsed value: at most
// MaxSnapshotPathLength characters, no control characters, and no user information (it is
// echoed in status and Events).
func validateSnapshotPath(path *field.Path, p string) field.ErrorList {
	switch {
	case p == "":
		return nil
	case len(p) > MaxSnapshotPathLength:
		return field.ErrorList{field.TooLong(path, len(p), MaxSnapshotPathLength)}
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return field.ErrorList{field.Invalid(path, fmt.Sprintf("%q", p), "must not contain control characters")}
	}
	if u, err := url.Parse(p); err != nil {
		return field.ErrorList{field.Invalid(path, "(unparsable path)", "is not a path or URI: "+err.Error())}
	} else if u.User != nil {
		return field.ErrorList{field.Invalid(path, u.Redacted(), "must not carry user information: give the job's file system its credentials in its configuration")}
	}
	return nil
}
