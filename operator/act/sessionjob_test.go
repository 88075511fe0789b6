package act

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

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

// A fetch needs a free slot, and a namespace has at most one: with its namespace's slot or
// every slot taken the executor returns ErrJarFetchBusy at once instead of waiting on a jar
// server; with one free it streams the jar to the cluster and gives the slot back.
func TestSubmitFetchSlots(t *testing.T) {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://jars.example.com/job.jar", httpmock.NewStringResponder(200, "PK-jar"))
	api := &uploads{got: map[string]string{}}
	e := &SessionJobExecutor{
		Flink:      func(*flinkv1beta1.FlinkDeployment) SessionFlinkAPI { return api },
		Jars:       &flink.JarFetcher{Transport: mt, TempDir: t.TempDir(), Policy: flink.FetchPolicy{Resolver: fixtures.PublicResolver{}}},
		FetchSlots: NewFetchSlots(2),
	}
	submit := sessionjob.Action{Kind: sessionjob.ActSubmitJob, Submit: &sessionjob.Submit{
		Job: flinkv1beta1.JobSpec{JarURI: "https://jars.example.com/job.jar"}, JarName: "flinkop-x-job.jar",
	}}
	in := func(ns string) *flinkv1beta1.FlinkDeployment {
		d := &flinkv1beta1.FlinkDeployment{}
		d.Namespace = ns
		return d
	}
	releaseA, _ := e.FetchSlots.take("team-a") // a slow fetch of team a is under way
	if err := e.Execute(context.Background(), in("team-a"), submit); !errors.Is(err, ErrJarFetchBusy) {
		t.Fatalf("a second fetch of team a: err = %v, want ErrJarFetchBusy", err)
	}
	releaseC, _ := e.FetchSlots.take("team-c") // every slot taken
	if err := e.Execute(context.Background(), in("team-b"), submit); !errors.Is(err, ErrJarFetchBusy) {
		t.Fatalf("with no free slot: err = %v, want ErrJarFetchBusy", err)
	}
	releaseC()
	if err := e.Execute(context.Background(), in("team-b"), submit); err != nil {
		t.Fatalf("team b with a free slot: %v", err)
	}
	releaseA()
	if api.got["flinkop-x-job.jar"] != "PK-jar" || e.FetchSlots.Busy() != 0 {
		t.Errorf("uploaded %v, slots taken %d; want the jar and every slot released", api.got, e.FetchSlots.Busy())
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
	if err := e.Execute(context.Background(), cluster, submit("https://jars.example.com/job.jar")); !errors.Is(err, flink.ErrJarFetch) || !strings.Contains(err.Error(), "credentials are off") {
		t.Errorf("credentials off: err = %v", err)
	}
	var asked string
	e.Credentials = func(_ context.Context, namespace, secret string) (JarCredentials, error) {
		asked = namespace + "/" + secret
		return JarCredentials{Authorization: "Bearer t0ken", Host: "jars.example.com"}, nil
	}
	if err := e.Execute(context.Background(), cluster, submit("https://evil.example.org/job.jar")); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("credentials for another host: err = %v, want refused", err)
	}
	if err := e.Execute(context.Background(), cluster, submit("http://jars.example.com/job.jar")); !errors.Is(err, flink.ErrFetchRefused) {
		t.Errorf("credentials over http: err = %v, want refused", err)
	}
	if err := e.Execute(context.Background(), cluster, submit("https://jars.example.com/job.jar")); err != nil || api.got["flinkop-x-job.jar"] != "PK-private" {
		t.Errorf("with credentials: %v, uploaded %v", err, api.got)
	}
	if asked != "team-a/repo-token" {
		t.Errorf("read Secret %q, want team-a/repo-token", asked)
	}
}
