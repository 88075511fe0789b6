package v1beta1_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// validatable is what every kind offers.
type validatable interface {
	Validate() field.ErrorList
}

// newObject returns an empty object of the document's kind.
func newObject(kind string) validatable {
	switch kind {
	case "FlinkSessionJob":
		return &flinkv1beta1.FlinkSessionJob{}
	case "FlinkStateSnapshot":
		return &flinkv1beta1.FlinkStateSnapshot{}
	case "FlinkBlueGreenDeployment":
		return &flinkv1beta1.FlinkBlueGreenDeployment{}
	}
	return &flinkv1beta1.FlinkDeployment{}
}

// checkCompatible decodes doc strictly, round-trips it through JSON and validates it.
func checkCompatible(t *testing.T, doc fixtures.Document) {
	t.Helper()
	first := newObject(doc.Kind)
	if err := fixtures.DecodeStrict(doc.YAML, first); err != nil {
		t.Fatalf("strict decode: %v", err)
	}
	encoded, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	second := newObject(doc.Kind)
	if err := fixtures.DecodeStrict(encoded, second); err != nil {
		t.Fatalf("strict decode of the re-encoded object: %v", err)
	}
	if !equality.Semantic.DeepEqual(first, second) {
		t.Errorf("round trip changed the object:\nfirst:  %+v\nsecond: %+v", first, second)
	}
	if errs := first.Validate(); len(errs) > 0 {
		t.Errorf("Validate() rejected it: %v", errs.ToAggregate())
	}
}

// TestApacheExamplesDecodeStrictly is the compatibility promise: every FlinkDeployment,
// FlinkSessionJob, FlinkStateSnapshot and FlinkBlueGreenDeployment the Apache operator ships as an example decodes into our types with no
// unknown field, survives a round trip unchanged and passes validation.
func TestApacheExamplesDecodeStrictly(t *testing.T) {
	dir, docs := fixtures.ApacheExamples(t, "FlinkDeployment", "FlinkSessionJob", "FlinkStateSnapshot", "FlinkBlueGreenDeployment")
	for _, doc := range docs {
		rel, _ := filepath.Rel(dir, doc.File)
		t.Run(filepath.ToSlash(rel)+"/"+doc.Name, func(t *testing.T) { checkCompatible(t, doc) })
	}
}

// TestProjectExamplesDecodeStrictly checks examples/ (not examples/invalid/) the same way.
func TestProjectExamplesDecodeStrictly(t *testing.T) {
	for _, doc := range fixtures.ProjectExamples(t, "FlinkDeployment", "FlinkSessionJob", "FlinkStateSnapshot", "FlinkBlueGreenDeployment") {
		t.Run(filepath.Base(doc.File)+"/"+doc.Name, func(t *testing.T) { checkCompatible(t, doc) })
	}
}

// TestStrictDecodeNamesUnknownFieldPath makes sure the strict decoder really rejects unknown
// fields and says where they are.
func TestStrictDecodeNamesUnknownFieldPath(t *testing.T) {
	doc := []byte("apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\nspec:\n  job:\n    parralelism: 2\n")
	err := fixtures.DecodeStrict(doc, &flinkv1beta1.FlinkDeployment{})
	if err == nil {
		t.Fatal("an unknown field decoded without error")
	}
	if want := `unknown field "spec.job.parralelism"`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}
