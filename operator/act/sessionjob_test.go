package act

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/flink"
	"github.com/flinkop/flinkop/operator/sessionjob"
)

// uploads is a session cluster that records the jars uploaded to it.
type uploads struct {
	SessionFlinkAPI
	got map[string]string
}

func (u *uploads) ListJars(context.Context) ([]flink.Jar, error) { return nil, nil }

func (u *uploads) UploadJar(_ context.Context, name string, jar io.Reader, size int64) (string, error) {
	data, err := io.ReadAll(jar)
	if int64(len(data)) != size {
		return "", errors.New("size does not match the jar")
	}
	u.got[name] = string(data)
	return name, err
}

func (u *uploads) RunJar(context.Context, string, flink.RunJarRequest) (string, error) {
	return "", nil
}

// submitJob is the submission of session job name's jar at uri.
func submitJob(uri string) sessionjob.Action {
	return sessionjob.Action{Kind: sessionjob.ActSubmitJob, Submit: &sessionjob.Submit{
		Job: flinkv1beta1.JobSpec{JarURI: uri}, JarName: "flinkop-x-job.jar",
	}}
}

// sessionJobIn is session job name of namespace ns, generation 1.
func sessionJobIn(ns, name string) *flinkv1beta1.FlinkSessionJob {
	j := &flinkv1beta1.FlinkSessionJob{}
	j.Namespace, j.Name, j.Generation = ns, name, 1
	return j
}

// A fetch needs a free slot, and a namespace has at most one: with its namespace's slot or
// every slot taken the executor returns a *RetryLaterError at once instead of waiting on a
// jar server; with one free it streams the jar to the cluster and gives the slot back.
func TestSubmitFetchSlots(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/job.jar", httpmock.NewStringResponder(200, "PK-jar"))
	api := &uploads{got: map[string]string{}}
	e := &SessionJobExecutor{
		Flink:      func(*flinkv1beta1.FlinkDeployment) SessionFlinkAPI { return api },
		Jars:       &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
		FetchSlots: NewFetchSlots(2, 1, clocktesting.NewFakeClock(time.Unix(0, 0))),
	}
	submit := submitJob("https://jars.example.com/job.jar")
	execute := func(ns string) error {
		d := &flinkv1beta1.FlinkDeployment{}
		d.Namespace = ns
		return e.Execute(t.Context(), sessionJobIn(ns, "etl"), d, submit)
	}
	fetchA, _ := e.FetchSlots.take(t.Context(), fetchJob("team-a/slow")) // a slow fetch of team a is under way
	if err := execute("team-a"); !errors.As(err, new(*RetryLaterError)) {
		t.Fatalf("a second fetch of team a: err = %v, want *RetryLaterError", err)
	}
	fetchC, _ := e.FetchSlots.take(t.Context(), fetchJob("team-c/slow")) // every slot taken
	if err := execute("team-b"); !errors.As(err, new(*RetryLaterError)) {
		t.Fatalf("with no free slot: err = %v, want *RetryLaterError", err)
	}
	_ = fetchC.Done(nil)
	if err := execute("team-b"); err != nil {
		t.Fatalf("team b with a free slot: %v", err)
	}
	_ = fetchA.Done(nil)
	if api.got["flinkop-x-job.jar"] != "PK-jar" || e.FetchSlots.Busy() != 0 {
		t.Errorf("uploaded %v, slots taken %d; want the jar and every slot released", api.got, e.FetchSlots.Busy())
	}
}

// A session job deleted while its jar server keeps the fetch waiting frees its slot at once,
// for the job waiting for one: the fetch's request is cancelled, and the submission ends as
// cancelled, not as a failure to back off from.
func TestSubmitOfADeletedJobFreesItsSlotAtOnce(t *testing.T) {
	mt := httpmock.NewMockTransport()
	asked := make(chan struct{})
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/endless.jar", func(r *http.Request) (*http.Response, error) {
		close(asked)
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	slots := NewFetchSlots(1, 1, clocktesting.NewFakeClock(time.Unix(0, 0)))
	var woken []string
	slots.OnFree(func(owner types.NamespacedName) { woken = append(woken, owner.String()) })
	e := &SessionJobExecutor{
		Flink:      func(*flinkv1beta1.FlinkDeployment) SessionFlinkAPI { return &uploads{got: map[string]string{}} },
		Jars:       &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
		FetchSlots: slots,
	}
	cluster := &flinkv1beta1.FlinkDeployment{}
	cluster.Namespace = "team-a"
	done := make(chan error)
	go func() {
		done <- e.Execute(context.Background(), sessionJobIn("team-a", "endless"), cluster, submitJob("https://jars.example.com/endless.jar"))
	}()
	<-asked
	waiting := sessionJobIn("team-b", "etl")
	if err := e.Execute(t.Context(), waiting, cluster, submitJob("https://jars.example.com/job.jar")); !errors.As(err, new(*RetryLaterError)) {
		t.Fatalf("with the slot taken: %v, want *RetryLaterError", err)
	}
	slots.Returned(types.NamespacedName{Namespace: "team-b", Name: "etl"})
	slots.Forget(types.NamespacedName{Namespace: "team-a", Name: "endless"})
	if diff := cmp.Diff([]string{"team-b/etl"}, woken); diff != "" {
		t.Errorf("woken as the job was deleted (-want +got):\n%s", diff)
	}
	if err := <-done; !errors.Is(err, ErrFetchCancelled) || errors.As(err, new(*FetchBackoffError)) {
		t.Errorf("the deleted job's submission: %v, want ErrFetchCancelled", err)
	}
	if slots.Busy() != 1 {
		t.Errorf("%d slots taken, want the one kept for team-b/etl", slots.Busy())
	}
}

// A session job naming a credentials Secret sends its Authorization header to the Secret's
// host only, over https only, and not at all when credentials are off.
func TestSubmitJarCredentials(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/job.jar", func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			return httpmock.NewStringResponse(http.StatusUnauthorized, "who are you"), nil
		}
		return httpmock.NewStringResponse(http.StatusOK, "PK-private"), nil
	})
	api := &uploads{got: map[string]string{}}
	e := &SessionJobExecutor{
		Flink: func(*flinkv1beta1.FlinkDeployment) SessionFlinkAPI { return api },
		Jars:  &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
	}
	submit := func(uri string) sessionjob.Action {
		return sessionjob.Action{Kind: sessionjob.ActSubmitJob, Submit: &sessionjob.Submit{
			Job: flinkv1beta1.JobSpec{JarURI: uri}, JarName: "flinkop-x-job.jar", CredentialsSecret: "repo-token",
		}}
	}
	cluster := &flinkv1beta1.FlinkDeployment{}
	cluster.Namespace = "team-a"
	if err := e.Execute(context.Background(), sessionJobIn("team-a", "x"), cluster, submit("https://jars.example.com/job.jar")); !errors.Is(err, flink.ErrJarFetch) || !strings.Contains(err.Error(), "credentials are off") {
		t.Errorf("credentials off: err = %v", err)
	}
	var asked string
	e.Credentials = func(_ context.Context, namespace, secret string) (JarCredentials, error) {
		asked = namespace + "/" + secret
		return JarCredentials{Authorization: "Bearer t0ken", Host: "jars.example.com"}, nil
	}
	if err := e.Execute(context.Background(), sessionJobIn("team-a", "x"), cluster, submit("https://evil.example.org/job.jar")); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("credentials for another host: err = %v, want refused", err)
	}
	if err := e.Execute(context.Background(), sessionJobIn("team-a", "x"), cluster, submit("http://jars.example.com/job.jar")); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("credentials over http: err = %v, want refused", err)
	}
	if err := e.Execute(context.Background(), sessionJobIn("team-a", "x"), cluster, submit("https://jars.example.com/job.jar")); err != nil || api.got["flinkop-x-job.jar"] != "PK-private" {
		t.Errorf("with credentials: %v, uploaded %v", err, api.got)
	}
	if asked != "team-a/repo-token" {
		t.Errorf("read Secret %q, want team-a/repo-token", asked)
	}
}
