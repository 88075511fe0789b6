package podsim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink/image"
	"github.com/flinkop/flinkop/operator/act"
)

// DefaultJars are the jars every simulated Flink image holds: the official image's examples,
// and the job jar of a user image built on it (local:///opt/flink/job.jar, class
// org.example.Job).
func DefaultJars() map[string]image.Jar {
	jars := image.ExampleJars()
	jars["/opt/flink/job.jar"] = image.Jar{MainClass: "org.example.Job"}
	return jars
}

// launch is one container start as the image and Flink would do it: the process, or the
// failure it exits with, and the digest of what it depended on (the image, the arguments
// and the ConfigMap's version).
type launch struct {
	proc    *image.Process
	failure *image.Failure
	digest  string
	pod     image.Pod // what it started from: a native JobManager's TaskManagers start from its files
}

// start applies the Flink image contract to a Deployment's pod: the rendered ConfigMap is its
// conf directory, the main container's arguments go to the image's entrypoint. Each
// Deployment's result is kept until what it depends on changes (parsing a configuration on
// every sync of a fleet of thousands costs more than the operator).
func (s *Sim) start(ctx context.Context, dep *appsv1.Deployment) (launch, error) {
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: dep.Namespace, Name: act.ConfigMapName(dep.Labels[act.LabelApp])}
	if err := s.reader().Get(ctx, key, &cm); err != nil {
		return launch{}, fmt.Errorf("flink config of %s: %w", dep.Name, err)
	}
	main := mainContainer(dep)
	// The ConfigMap's resourceVersion changes with its data (hashing the data of every
	// ConfigMap on every sync would cost as much as the parse it saves).
	digest := strings.Join(append([]string{main.Image, string(cm.UID), cm.ResourceVersion}, main.Args...), "\x00")
	depKey := dep.Namespace + "/" + dep.Name
	s.mu.Lock()
	cached, ok := s.launches[depKey]
	s.mu.Unlock()
	if ok && cached.digest == digest {
		return cached, nil
	}
	// The process is the first pod's: the kubelet expands its arguments with its own IP.
	ip := PodIP(podKey(depKey, 0))
	args := expandArgs(&main, ip)
	pod := image.Pod{
		Version: podVersion(main.Image, cm.Data), Args: args, ConfFiles: maps.Clone(cm.Data), Jars: s.Jars,
		Env: map[string]string{image.PodIPEnv: ip},
	}
	proc, failure := image.Start(pod)
	l := launch{proc: proc, failure: failure, digest: digest, pod: pod}
	s.mu.Lock()
	s.launches[depKey] = l
	s.mu.Unlock()
	return l, nil
}

// podVersion is the Flink version of a pod: its image's tag when that names one ("flink:1.18"),
// else the version the operator recorded in the configuration, else 1.20.
func podVersion(ref string, files map[string]string) image.Version {
	if v, ok := image.ParseVersion(ref); ok {
		return v
	}
	for _, f := range []string{image.YAMLConfigFile, image.LegacyConfigFile} {
		for _, line := range strings.Split(files[f], "\n") {
			if v, ok := strings.CutPrefix(line, "$internal.flink.version: "); ok {
				if ver, ok := image.ParseVersion(strings.Trim(v, `"' `)); ok {
					return ver
				}
			}
		}
	}
	return image.Version{Major: 1, Minor: 20}
}

// failureMessage is what a kubelet keeps of a container that exited: with
// terminationMessagePolicy FallbackToLogsOnError, the tail of its log.
func failureMessage(f *image.Failure) string {
	return strings.Join(f.Log, "\n")
}

// configFailure is how a JobManager exits on a configuration value Flink refuses at start.
func configFailure(err error) *image.Failure {
	msg := err.Error()
	return &image.Failure{
		ExitCode: 1, Class: "org.apache.flink.configuration.IllegalConfigurationException", Message: msg,
		Log: []string{
			"ERROR org.apache.flink.runtime.entrypoint.ClusterEntrypoint [] - Could not start cluster entrypoint.",
			"org.apache.flink.configuration.IllegalConfigurationException: " + msg,
		},
	}
}

// setFailure records (or clears) the container failure of a Deployment's pods.
func (s *Sim) setFailure(key string, f *image.Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == nil {
		delete(s.failures, key)
		return
	}
	s.failures[key] = f
}

// failedStatus is the status a kubelet reports for a container that keeps exiting with f.
func (s *Sim) failedStatus(key string, status *corev1.ContainerStatus) {
	s.mu.Lock()
	f := s.failures[key]
	s.mu.Unlock()
	if f == nil || status.State.Waiting == nil || status.State.Waiting.Reason != "CrashLoopBackOff" {
		return
	}
	status.State.Waiting.Message = "back-off 10s restarting failed container=" + act.MainContainer
	status.RestartCount = 1
	status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{
		ExitCode: int32(f.ExitCode), Reason: "Error", Message: failureMessage(f),
	}
}

// cachedHash is a JobManager Deployment's template hash and what it was computed from: the
// Deployment's generation and the digest of its launch (see start), which the
// configuration follows.
type cachedHash struct {
	uid        types.UID
	generation int64
	digest     string
	hash       string
}

// templateHash is the hash of a JobManager Deployment's pod template and configuration: when
// it changes, the pod is replaced. It is computed again only when the Deployment's
// generation or its launch's digest changed (marshalling every template on every sync of a
// fleet of thousands costs more than the operator).
func (s *Sim) templateHash(key string, dep *appsv1.Deployment, conf map[string]string, digest string) string {
	s.mu.Lock()
	cached, ok := s.hashes[key]
	s.mu.Unlock()
	if ok && cached.uid == dep.UID && cached.generation == dep.Generation && cached.digest == digest {
		return cached.hash
	}
	data, _ := json.Marshal([]any{dep.Spec.Template, conf})
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:8])
	s.mu.Lock()
	s.hashes[key] = cachedHash{uid: dep.UID, generation: dep.Generation, digest: digest, hash: hash}
	s.mu.Unlock()
	return hash
}
