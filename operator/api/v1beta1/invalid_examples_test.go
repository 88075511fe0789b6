package v1beta1_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/flinkop/flinkop/harness/fixtures"
)

// invalidExamples returns the documents of examples/invalid whose files say they are rejected
// by layer ("validate", "apiserver" or "apiserver-update"), grouped by file.
func invalidExamples(t *testing.T, layer string) map[string][]fixtures.Document {
	t.Helper()
	dir := filepath.Join(fixtures.MustModuleRoot(t), "examples", "invalid")
	docs, err := fixtures.Documents(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]fixtures.Document{}
	for _, d := range docs {
		by := d.Directive("rejected-by")
		if by == "" || d.Directive("expect") == "" {
			t.Fatalf("%s: every invalid example needs '# rejected-by:' and '# expect:' comments", d.File)
		}
		if by == layer {
			out[filepath.Base(d.File)] = append(out[filepath.Base(d.File)], d)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no invalid example is rejected by %q", layer)
	}
	return out
}

// TestInvalidExamplesRejectedByValidate checks that each examples/invalid file marked
// "rejected-by: validate" decodes (the API server would store it) and that Validate() rejects
// it with the message its header expects.
func TestInvalidExamplesRejectedByValidate(t *testing.T) {
	for file, docs := range invalidExamples(t, "validate") {
		t.Run(file, func(t *testing.T) {
			doc := docs[0]
			obj := newObject(doc.Kind)
			if err := fixtures.DecodeStrict(doc.YAML, obj); err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			errs := obj.Validate()
			if errs == nil {
				t.Fatal("Validate() accepted it")
			}
			if got, want := errs.ToAggregate().Error(), doc.Directive("expect"); !strings.Contains(got, want) {
				t.Errorf("Validate() = %q\nwant it to contain %q", got, want)
			}
		})
	}
}
