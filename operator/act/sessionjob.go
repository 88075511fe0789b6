package act

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// SessionFlinkAPI is what executing session job actions needs from a session cluster's REST
// API.
type SessionFlinkAPI interface {
	ListJars(ctx context.Context) ([]flink.Jar, error)
	UploadJar(ctx context.Context, name string, jar io.Reader, size int64) (string, error)
	RunJar(ctx context.Context, jarID string, req flink.RunJarRequest) (string, error)
	DeleteJar(ctx context.Context, jarID string) error
	CancelJob(ctx context.Context, jobID string) error
	StopWithSavepoint(ctx context.Context, jobID string, req flink.StopRequest) (string, error)
	TriggerSavepoint(ctx context.Context, jobID string, req flink.SavepointRequest) (string, error)
	TriggerCheckpoint(ctx context.Context, jobID, checkpointType, triggerID string) (string, error)
	DisposeSavepoint(ctx context.Context, path string) (string, error)
}

// SessionJobExecutor carries out sessionjob's actions on the session cluster.
type SessionJobExecutor struct {
	// Flink returns the REST client of a session cluster's JobManager.
	Flink func(cluster *flinkv1beta1.FlinkDeployment) SessionFlinkAPI
	// Jars fetches file:// and http(s):// jars.
	Jars *flink.JarFetcher
	// Credentials returns the credentials kept in a Secret of the namespace (nil: jar
	// credentials are off, and a session job naming a Secret is refused).
	Credentials func(ctx context.Context, namespace, secret string) (JarCredentials, error)
	// FetchSlots bound the jar fetches under way at once (nil: no bound). With fewer slots
	// than reconcile workers, slow jar servers can never hold every worker; with few per
	// namespace, one tenant never holds every slot. A reconcile that finds no slot free gets
	// a *RetryLaterError at once, one whose job's last fetch failed a *FetchBackoffError.
	FetchSlots *FetchSlots
}

// JarCredentials are the credentials of one jar host: the Authorization header value and
// the only host (host[:port], as in the URL) it may be sent to.
type JarCredentials struct {
	Authorization string
	Host          string
}

// Execute performs one action of session job j against the session cluster. An error means
// it did not (fully) happen; retrying is safe.
func (e *SessionJobExecutor) Execute(ctx context.Context, j *flinkv1beta1.FlinkSessionJob, cluster *flinkv1beta1.FlinkDeployment, a sessionjob.Action) error {
	if a.Kind == decide.ActNone {
		return nil
	}
	if cluster == nil {
		return fmt.Errorf("%s: the session cluster is gone", a.Kind)
	}
	api := e.Flink(cluster)
	switch a.Kind {
	case sessionjob.ActSubmitJob:
		return e.submit(ctx, api, FetchJob{Key: types.NamespacedName{Namespace: j.Namespace, Name: j.Name}, Generation: j.Generation}, a.Submit)
	case sessionjob.ActDeleteJars:
		return deleteJars(ctx, api, a.JarIDs)
	case decide.ActCancelJob:
		err := api.CancelJob(ctx, a.JobID)
		if flink.IsConflict(err) || flink.IsNotFound(err) {
			return nil // already ended, or gone
		}
		return wrap("cancel job", err)
	case decide.ActStopWithSavepoint:
		_, err := api.StopWithSavepoint(ctx, a.JobID, flink.StopRequest{TriggerID: a.TriggerID, FormatType: a.FormatType, Drain: a.Drain})
		return wrap("stop with savepoint", err)
	case decide.ActTriggerSavepoint:
		_, err := api.TriggerSavepoint(ctx, a.JobID, flink.SavepointRequest{TriggerID: a.TriggerID, FormatType: a.FormatType})
		return wrap("trigger savepoint", err)
	case decide.ActTriggerCheckpoint:
		_, err := api.TriggerCheckpoint(ctx, a.JobID, checkpointType(a.FormatType), a.TriggerID)
		return wrap("trigger checkpoint", err)
	case decide.ActDisposeSavepoint:
		// Flink deletes the files asynchronously; a refused request keeps the history entry.
		_, err := api.DisposeSavepoint(ctx, a.Path)
		return wrap("dispose savepoint "+a.Path, err)
	}
	return fmt.Errorf("unknown session job action %q", a.Kind)
}

// submit runs the job from its jar under the recorded job id. A job id the cluster already
// runs is a submission that got through before: nothing to do.
func (e *SessionJobExecutor) submit(ctx context.Context, api SessionFlinkAPI, fetch FetchJob, s *sessionjob.Submit) error {
	jarID, err := e.jar(ctx, api, fetch, s)
	if err != nil {
		return err
	}
	job := s.Job
	req := flink.RunJarRequest{
		EntryClass: job.EntryClass, Args: job.Args, JobID: s.JobID, SavepointPath: s.RestorePath,
		AllowNonRestoredState: job.AllowNonRestoredState != nil && *job.AllowNonRestoredState,
		FlinkConfiguration:    s.Configuration,
	}
	if job.Parallelism != nil {
		req.Parallelism = *job.Parallelism
	}
	_, err = api.RunJar(ctx, jarID, req)
	if flink.IsConflict(err) {
		return nil
	}
	return wrap("run jar "+jarID, err)
}

// jar finds the submission's jar on the cluster, uploading it when it is not there yet: a
// local:// jar must already be listed by its file name; other jars are fetched by the
// operator, holding a fetch slot, and uploaded under s.JarName (found again by that name
// after a retry).
func (e *SessionJobExecutor) jar(ctx context.Context, api SessionFlinkAPI, job FetchJob, s *sessionjob.Submit) (string, error) {
	jars, err := api.ListJars(ctx)
	if err != nil {
		return "", wrap("list jars", err)
	}
	name := s.JarName
	if sessionjob.IsLocalJar(s.Job.JarURI) {
		name = path.Base(s.Job.JarURI)
	}
	if i := slices.IndexFunc(jars, func(j flink.Jar) bool { return j.Name == name || j.ID == name }); i >= 0 {
		return jars[i].ID, nil
	}
	if sessionjob.IsLocalJar(s.Job.JarURI) {
		return "", fmt.Errorf("%w: jar %s is not on the session cluster: a local:// jar must be in the cluster's image, listed by GET /jars", flink.ErrJarFetch, s.Job.JarURI)
	}
	fetch, err := e.FetchSlots.take(ctx, job)
	if err != nil {
		return "", err
	}
	id, err := e.upload(fetch.Context(), api, job.Key.Namespace, name, s)
	return id, fetch.Done(err)
}

// upload fetches the submission's jar and uploads it to the cluster under name.
func (e *SessionJobExecutor) upload(ctx context.Context, api SessionFlinkAPI, namespace, name string, s *sessionjob.Submit) (string, error) {
	auth, err := e.authorization(ctx, namespace, s.CredentialsSecret, s.Job.JarURI)
	if err != nil {
		return "", err
	}
	jar, err := e.Jars.FetchAuthorized(ctx, s.Job.JarURI, auth)
	if err != nil {
		return "", err
	}
	defer func() { _ = jar.Close() }()
	id, err := api.UploadJar(ctx, name, jar, jar.Size)
	return id, wrap("upload jar "+name, err)
}

// authorization reads the credentials a submission names ("" when it names none); they must
// be for the jar's host.
func (e *SessionJobExecutor) authorization(ctx context.Context, namespace, secret, jarURI string) (string, error) {
	switch {
	case secret == "":
		return "", nil
	case e.Credentials == nil:
		return "", fmt.Errorf("%w: jar credentials are off (the operator's --jar-credentials is not set)", flink.ErrJarFetch)
	}
	creds, err := e.Credentials(ctx, namespace, secret)
	if err != nil {
		return "", fmt.Errorf("%w: credentials: %w", flink.ErrJarFetch, err)
	}
	u, err := flinkv1beta1.ParseJarURI(jarURI)
	if err != nil {
		return "", fmt.Errorf("%w: %w", flink.ErrJarFetch, err)
	}
	if !strings.EqualFold(u.Host, creds.Host) {
		return "", fmt.Errorf("%w: %w: the credentials of Secret %s are for host %q, not %q", flink.ErrJarFetch, flink.ErrFetchRefused, secret, creds.Host, u.Host)
	}
	return creds.Authorization, nil
}

// deleteJars deletes the jars that are still on the cluster.
func deleteJars(ctx context.Context, api SessionFlinkAPI, ids []string) error {
	jars, err := api.ListJars(ctx)
	if err != nil {
		return wrap("list jars", err)
	}
	for _, j := range jars {
		if slices.Contains(ids, j.ID) {
			if err := api.DeleteJar(ctx, j.ID); err != nil {
				return wrap("delete jar "+j.ID, err)
			}
		}
	}
	return nil
}

var _ SessionFlinkAPI = (*flink.Client)(nil)
