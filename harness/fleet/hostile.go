package fleet

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/flinkop/flinkop/fakeflink"
	"github.com/flinkop/flinkop/operator/act"
)

// The hostile tenants' code of Config.Hostile: JobManagers that answer every REST call with
// 20 MiB or an endless answer, and ConfigMaps of 1 MB with Flink's HA labels, as a tenant's
// code may write them under Flink's ServiceAccount.
const (
	HostileJobManagers = 20
	HostileConfigMaps  = 1000
	hostileDataBytes   = 1_000_000
)

// hostile makes HostileJobManagers of the healthy deployments' JobManagers hostile and creates
// HostileConfigMaps in the fleet's namespace, holds the fleet for a reconcile interval (every
// hostile JobManager is polled) and measures the operator's memory before and after: heap,
// resident set and its peak.
func (f *fleet) hostile(ctx context.Context) error {
	f.rep.HostileBaseHeapMB, f.rep.HostileBaseRSSMB = f.operatorMemory(ctx)
	names := f.names[f.rep.Slow:]
	names = names[:min(len(names), HostileJobManagers)]
	answers := []fakeflink.RESTFault{fakeflink.RESTHugeAnswers, fakeflink.RESTEndlessAnswers}
	for i, name := range names {
		f.sim.Do(namespace, act.JobManagerName(name), func(c *fakeflink.Cluster) {
			c.SetRESTFault(answers[i%len(answers)], c.Now().Add(24*time.Hour))
		})
	}
	f.logf("%d JobManagers answer hostile; creating %d ConfigMaps of 1 MB with Flink's HA labels", len(names), HostileConfigMaps)
	data := map[string]string{"checkpointID-0000000000000000001": strings.Repeat("d", hostileDataBytes)}
	if err := parallel(ctx, 8, HostileConfigMaps, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("tenant-flood-%04d", i)
		return f.env.Client.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{
				act.LabelType: act.TypeNative, act.LabelApp: name, act.LabelConfigMapType: act.ConfigMapTypeHA,
			}},
			Data: data,
		})
	}); err != nil {
		return fmt.Errorf("tenant ConfigMaps: %w", err)
	}
	f.logf("holding for %s with hostile tenants", f.cfg.Steady)
	sleep(ctx, f.cfg.Steady)
	f.rep.HostileHeapMB, f.rep.HostileRSSMB = f.operatorMemory(ctx)
	if f.proc != nil {
		_, _, f.rep.HostilePeakRSSMB, _ = f.proc.memory(ctx, "")
	}
	f.rep.HostileJobManagers, f.rep.Hostile = len(names), true
	return nil
}

// operatorMemory is the operator's heap and (when it runs apart) resident set, in MB.
func (f *fleet) operatorMemory(ctx context.Context) (heap, rss float64) {
	if f.proc == nil {
		return operatorHeapMB(), -1
	}
	heap, rss, _, err := f.proc.memory(ctx, "")
	if err != nil {
		f.logf("operator memory: %v", err)
		return -1, -1
	}
	return heap, rss
}
