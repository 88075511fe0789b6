package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/operator/act"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/clip"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
)

// answerWatch holds the operator to reading no REST answer past its endpoint's limit
// (flink.AnswerLimit; an error answer's flink.AnswerError), one byte over included: what it
// reads is what it holds, so a JobManager running hostile code (chaos.HostileJobManager) must
// not make it read 20 MiB, or an endless answer to its end (invariant T1). It also holds the
// operator to asking its cache only for what the cache holds (T4): a read the cache refuses
// (a typed read of a kind held as metadata, which in the operator would start an informer of
// whole objects, or fail) is a reconcile error the world sees.
type answerWatch struct {
	mu   sync.Mutex
	over []string
}

// watch wraps resp's body to count what the operator reads of it.
func (a *answerWatch) watch(req *http.Request, resp *http.Response) {
	limit := flink.AnswerLimit(req.Method, req.URL.RequestURI())
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		limit = flink.AnswerError
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, watch: a, what: req.Method + " " + req.URL.Path, limit: limit}
}

// notCached records a reconcile error of resource name that is a read the cache refused.
func (a *answerWatch) notCached(name string, err error) {
	if v := notCachedViolation(name, err); v != "" {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.over = append(a.over, v)
	}
}

// notCachedViolation is T4's violation for a reconcile error of resource name ("" when err is
// no read the cache refused).
func notCachedViolation(name string, err error) string {
	var nc *cache.ErrResourceNotCached
	if !errors.As(err, &nc) {
		return ""
	}
	return fmt.Sprintf("%s: the operator read through its cache what the cache does not hold (invariant T4): %s", name, clip.Line(err.Error(), 300))
}

// violations are the answers read past their limit, and the reads the cache refused, since
// the last call.
func (a *answerWatch) violations() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.over
	a.over = nil
	return out
}

type countedBody struct {
	io.ReadCloser
	watch    *answerWatch
	what     string
	limit    int64
	read     int64
	reported bool
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.limit+1 && !b.reported {
		b.reported = true
		b.watch.mu.Lock()
		b.watch.over = append(b.watch.over, fmt.Sprintf(
			"the operator read more than %d bytes of the answer to %s, over its endpoint's limit of %d (invariant T1: a hostile JobManager's answer is read no further than its limit)",
			b.read, b.what, b.limit))
		b.watch.mu.Unlock()
	}
	return n, err
}

// tenantCodeBounded checks the bounds the operator keeps against what a tenant's code sends
// (invariant T): no REST answer read past its limit (T1); every status.error of the world's
// resources at most clip.Status bytes of valid UTF-8 without control characters but newline
// and tab (T2); and of the world's ConfigMaps (a tenant's code writes them under Flink's
// ServiceAccount, with any labels and annotations) the operator's cache holds no data, and of
// their annotations at most the content hash it stamps on those it renders (T3).
func (c *Checker) tenantCodeBounded() []string {
	out := c.w.answers.violations()
	out = append(out, statusErrorsBounded(c.w)...)
	out = append(out, configMapsCachedBounded(c.w, controller.SlimForCache)...)
	return out
}

// statusErrorsBounded is T2 over the world's resources of every kind.
func statusErrorsBounded(w *World) []string {
	ctx, ns := context.Background(), client.InNamespace(w.Namespace)
	errs := map[string]string{}
	var deps flinkv1beta1.FlinkDeploymentList
	var jobs flinkv1beta1.FlinkSessionJobList
	var snaps flinkv1beta1.FlinkStateSnapshotList
	var bgs flinkv1beta1.FlinkBlueGreenDeploymentList
	if w.Client.List(ctx, &deps, ns) == nil {
		for _, d := range deps.Items {
			errs["FlinkDeployment "+d.Name] = d.Status.Error
		}
	}
	if w.Client.List(ctx, &jobs, ns) == nil {
		for _, j := range jobs.Items {
			errs["FlinkSessionJob "+j.Name] = j.Status.Error
		}
	}
	if w.Client.List(ctx, &snaps, ns) == nil {
		for _, s := range snaps.Items {
			errs["FlinkStateSnapshot "+s.Name] = s.Status.Error
		}
	}
	if w.Client.List(ctx, &bgs, ns) == nil {
		for _, b := range bgs.Items {
			errs["FlinkBlueGreenDeployment "+b.Name] = b.Status.Error
		}
	}
	var out []string
	for what, e := range errs {
		if msg := statusErrorProblem(e); msg != "" {
			out = append(out, fmt.Sprintf("%s: status.error %s (invariant T2)", what, msg))
		}
	}
	return out
}

// statusErrorProblem says what is wrong with a status.error ("" when nothing): Apache's JSON
// at most flinkv1beta1.MaxErrorBytes long, or a plain message (the blue/green and snapshot
// kinds'), whose message is at most clip.Status bytes.
func statusErrorProblem(e string) string {
	parsed, isJSON := flinkv1beta1.ParseError(e)
	msg := parsed.Message
	switch {
	case isJSON && len(e) > flinkv1beta1.MaxErrorBytes:
		return fmt.Sprintf("is %d bytes of JSON, over %d", len(e), flinkv1beta1.MaxErrorBytes)
	case len(msg) > clip.Status:
		return fmt.Sprintf("has a message of %d bytes, over %d", len(msg), clip.Status)
	case !utf8.ValidString(msg) || !utf8.ValidString(e):
		return "is not valid UTF-8"
	case strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }):
		return fmt.Sprintf("holds control characters: %.80q", msg)
	}
	return ""
}

// configMapsCachedBounded is T3: slim is what the cache keeps of an object
// (controller.SlimForCache; a test gives a broken one).
func configMapsCachedBounded(w *World, slim func(client.Object)) []string {
	var cms corev1.ConfigMapList
	if err := w.Client.List(context.Background(), &cms, client.InNamespace(w.Namespace)); err != nil {
		return nil
	}
	var out []string
	for i := range cms.Items {
		cm := &cms.Items[i]
		if !act.Cached(cm) {
			continue
		}
		var kept client.Object = cm.DeepCopy()
		if act.MetadataOnly(cm) {
			m := act.ConfigMapMetadata(cm.Namespace, cm.Name)
			m.ObjectMeta = *cm.ObjectMeta.DeepCopy()
			kept = m
		}
		slim(kept)
		_, hash := kept.GetAnnotations()[act.AnnotationContentHash]
		switch {
		case hasData(kept):
			out = append(out, fmt.Sprintf("ConfigMap %s: the operator's cache holds its data (invariant T3: a tenant's code writes ConfigMaps; the cache holds their metadata)", cm.Name))
		case len(kept.GetAnnotations()) > 1 || (len(kept.GetAnnotations()) == 1 && !hash):
			out = append(out, fmt.Sprintf("ConfigMap %s: the operator's cache holds %d annotations, not only its content hash (invariant T3)", cm.Name, len(kept.GetAnnotations())))
		}
	}
	return out
}

func hasData(o client.Object) bool {
	cm, ok := o.(*corev1.ConfigMap)
	return ok && (len(cm.Data) > 0 || len(cm.BinaryData) > 0)
}
