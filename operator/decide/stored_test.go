package decide

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// A small stored spec is Apache's plain JSON; a large one is compressed far below its size,
// encodes the same way twice, and reads back unchanged.
func TestStoredSpecRoundTrip(t *testing.T) {
	for name, size := range map[string]int{"small": 10, "large": flinkv1beta1.MaxSpecBytes - 1024} {
		spec := flinkv1beta1.FlinkDeploymentSpec{Image: "flink:1.20", FlinkConfiguration: flinkv1beta1.NewFlinkConfiguration(map[string]string{
			"env.java.opts.all": strings.Repeat("-Dx=y ", size/6),
		})}
		r := &ReconciledSpec{Spec: spec}
		enc := r.Encode()
		switch {
		case size < MaxPlainStoredSpec && !strings.HasPrefix(enc, "{"):
			t.Errorf("%s: stored as %.20q, want plain JSON", name, enc)
		case size >= MaxPlainStoredSpec && (!strings.HasPrefix(enc, storedGzipPrefix) || len(enc) > size/10):
			t.Errorf("%s: stored in %d bytes from %d, want it compressed", name, len(enc), size)
		}
		if enc != r.Encode() {
			t.Errorf("%s: two encodings of one spec differ", name)
		}
		got, err := ParseReconciledSpec(enc)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", name, diff)
		}
	}
	if _, err := ParseReconciledSpec(storedGzipPrefix + "not base64!"); err == nil {
		t.Error("a corrupt stored spec parsed")
	}
}
