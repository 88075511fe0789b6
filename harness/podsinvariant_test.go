package harness

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestOrphanedTaskManagerPodsFire: P1 fires on a native TaskManager pod that its JobManager
// Deployment does not own, and on one outliving its owner past OrphanGrace (a garbage
// collector that does not run); a pod of a live owner, or an orphan within the grace, passes.
func TestOrphanedTaskManagerPodsFire(t *testing.T) {
	w, c := checkedWorld(t, 1)
	pod := func(name, owner, uid string) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "a", "component": "taskmanager", "type": "flink-native-kubernetes"}}}
		if owner != "" {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: owner, UID: types.UID(uid), Controller: ptr.To(true)}}
		}
		return p
	}
	deps := []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "u2"}}}
	pods := []corev1.Pod{pod("owned", "a", "u2"), pod("unowned", "", ""), pod("orphan", "a", "u1")}
	first := c.orphansCollected(pods, deps)
	if len(first) != 1 || !strings.Contains(first[0], "unowned: not owned") {
		t.Errorf("at first sight: %v, want the unowned pod alone", first)
	}
	w.advanceTo(w.Now().Add(OrphanGrace + time.Second))
	got := strings.Join(c.orphansCollected(pods, deps), "\n")
	if !strings.Contains(got, "orphan: its JobManager Deployment a is gone") {
		t.Errorf("past the grace:\n%s", got)
	}
	if got := c.orphansCollected(pods[:1], deps); len(got) != 0 {
		t.Errorf("the orphan collected: %v", got)
	}
}
