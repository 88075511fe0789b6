package webhook_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/webhook"
)

func TestSessionJobDefaulter(t *testing.T) {
	long := strings.Repeat("a", 64) // a valid resource name, too long for a label value
	for name, tc := range map[string]struct {
		cluster string
		labels  map[string]string
		want    map[string]string
	}{
		"labelled with its cluster":         {cluster: "session", want: map[string]string{flinkv1beta1.LabelTargetSession: "session"}},
		"its other labels stay":             {cluster: "session", labels: map[string]string{"team": "a"}, want: map[string]string{"team": "a", flinkv1beta1.LabelTargetSession: "session"}},
		"a wrong label is corrected":        {cluster: "session", labels: map[string]string{flinkv1beta1.LabelTargetSession: "other"}, want: map[string]string{flinkv1beta1.LabelTargetSession: "session"}},
		"no cluster, no label":              {},
		"a name too long for a label value": {cluster: long},
	} {
		t.Run(name, func(t *testing.T) {
			j := &flinkv1beta1.FlinkSessionJob{
				ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "flink", Labels: tc.labels},
				Spec:       flinkv1beta1.FlinkSessionJobSpec{DeploymentName: tc.cluster},
			}
			spec := *j.Spec.DeepCopy()
			if err := (webhook.SessionJobDefaulter{}).Default(context.Background(), j); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, j.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(spec, j.Spec); diff != "" {
				t.Errorf("the spec changed (-before +after):\n%s", diff)
			}
		})
	}
}
