package controller_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/controller"
	"github.com/flinkop/flinkop/operator/flink"
)

// A jar that cannot be fetched is not fetched again at every reconcile (each would take a
// fetch slot again within seconds): the job backs off, 10s and then twice as long, and
// status.error and one Warning per failure say why and when it tries again. A reconcile
// while it waits is no error.
func TestSessionJobJarFetchFailureBacksOff(t *testing.T) {
	s := newSessionEnv(t)
	const missing = "https://jars.example.com/missing.jar"
	s.jars.RegisterResponder(http.MethodGet, missing, httpmock.NewStringResponder(http.StatusNotFound, "no such jar"))
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) { j.Spec.Job.JarURI = missing }))
	fetches := func() int { return s.jars.GetCallCountInfo()["GET "+missing] }
	s.untilJob("etl", 10, "fetched once", func(*flinkv1beta1.FlinkSessionJob) bool { return fetches() == 1 })
	failedAt := s.clock.Now().Add(-time.Second) // stepJob moved the clock on
	j := s.getJob("etl")
	want := "HTTP 404 Not Found; the next try is at " + failedAt.Add(10*time.Second).UTC().Format(time.RFC3339) + " (back-off 10s)"
	if !strings.Contains(flinkv1beta1.ErrorMessage(j.Status.Error), want) {
		t.Fatalf("status.error = %q, want it to say %q", flinkv1beta1.ErrorMessage(j.Status.Error), want)
	}
	for range 8 {
		if err := s.stepJob("etl"); err != nil {
			t.Fatalf("a reconcile while the job backs off: %v, want no error", err)
		}
	}
	if n := fetches(); n != 1 || flinkv1beta1.ErrorMessage(s.getJob("etl").Status.Error) != flinkv1beta1.ErrorMessage(j.Status.Error) {
		t.Fatalf("within the back-off: %d fetches and status.error %q, want 1 and %q", n, flinkv1beta1.ErrorMessage(s.getJob("etl").Status.Error), flinkv1beta1.ErrorMessage(j.Status.Error))
	}
	j = s.untilJob("etl", 4, "fetched again after 10s", func(*flinkv1beta1.FlinkSessionJob) bool { return fetches() == 2 })
	if !strings.Contains(flinkv1beta1.ErrorMessage(j.Status.Error), "(back-off 20s)") {
		t.Errorf("after the second failure status.error = %q, want a back-off of 20s", flinkv1beta1.ErrorMessage(j.Status.Error))
	}
	if n := s.countEvents("Warning ActionFailed"); n != 2 || !s.hasEvent("the next try is at") {
		t.Errorf("%d ActionFailed Warnings, want one a failure saying when it tries again: %v", n, s.events)
	}
}

// A jar server whose reason phrase is 4 MB long gets a short status.error (not an empty
// one: the status was too large to write) and short Events.
func TestSessionJobHostileReasonPhrase(t *testing.T) {
	s := newSessionEnv(t)
	const hostile = "https://jars.example.com/hostile.jar"
	s.jars.RegisterResponder(http.MethodGet, hostile, func(*http.Request) (*http.Response, error) {
		status := "500 " + strings.Repeat("\x1b[31mx", 4<<20/6)
		return &http.Response{StatusCode: 500, Status: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(status))}, nil
	})
	s.startCluster(sessionCluster("sess"))
	s.createJob(sessionJob("etl", "sess", flinkv1beta1.UpgradeModeStateless, func(j *flinkv1beta1.FlinkSessionJob) { j.Spec.Job.JarURI = hostile }))
	j := s.untilJob("etl", 10, "failed", func(j *flinkv1beta1.FlinkSessionJob) bool { return flinkv1beta1.ErrorMessage(j.Status.Error) != "" })
	if msg := flinkv1beta1.ErrorMessage(j.Status.Error); len(msg) > flink.MaxFetchError+256 || !strings.Contains(msg, "HTTP 500 ?[31mx") || strings.Contains(msg, "\x1b") {
		t.Errorf("status.error of %d bytes: %.400q; want the jar server's words cut short and printable", len(msg), msg)
	}
	for _, ev := range s.events {
		if len(ev) > controller.MaxEventMessage+64 {
			t.Errorf("an Event of %d bytes: %.200q", len(ev), ev)
		}
	}
}
