package fleet

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The REST transport, served as an HTTP proxy, carries a proxied call to its JobManager (by
// host), counts it, and answers 502 for a hung one once the caller gives up.
func TestRESTProxy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &slowTransport{inner: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"X-Host": {req.URL.Host}}, Body: io.NopCloser(strings.NewReader(req.URL.Path))}, nil
	})}
	rt.setSlow([]string{"job-2"})
	proxy, err := serve(ctx, restProxy(rt))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(proxy)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}, Timeout: 300 * time.Millisecond}
	resp, err := c.Get("http://job-1-rest.fleet:8081/jobs/overview")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	got := []string{resp.Status, resp.Header.Get("X-Host"), string(body)}
	if diff := cmp.Diff([]string{"200 OK", "job-1-rest.fleet:8081", "/jobs/overview"}, got); diff != "" {
		t.Errorf("proxied call (-want +got):\n%s", diff)
	}
	if _, err := c.Get("http://job-2-rest.fleet:8081/jobs/overview"); err == nil {
		t.Error("a call to a hung JobManager was answered")
	}
	if rt.calls.Load() != 2 || rt.hung.Load() != 1 {
		t.Errorf("calls %d, hung %d; want 2 and 1", rt.calls.Load(), rt.hung.Load())
	}
	resp, err = http.Get(proxy + "/jobs/overview") // not a proxy request
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a direct request got %s, want 400", resp.Status)
	}
}

func TestCountEvents(t *testing.T) {
	since := time.Date(2026, 11, 25, 12, 0, 0, 5e8, time.UTC) // within a second
	ev := func(reason string, created time.Duration, series *time.Duration) eventsv1.Event {
		e := eventsv1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(since.Add(created))}, Type: "Normal", Reason: reason}
		if series != nil {
			e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(since.Add(*series))}
		}
		return e
	}
	later, earlier := time.Minute, -time.Minute
	inIt, before, firstSecond := since.Add(time.Minute).Truncate(time.Second), since.Add(-time.Minute), since.Truncate(time.Second)
	got := countEvents([]eventsv1.Event{
		ev("Deployed", -time.Hour, nil),                       // before the window
		ev("Deployed", time.Second, nil),                      // created in it
		eventAt("Started", since.Add(time.Millisecond)),       // first occurred in its first second
		ev("Recovered", -time.Hour, &later),                   // a series that recurred in it
		ev("Recovered", -time.Hour, &earlier),                 // a series over before it
		ev("Recovered", 2*time.Second, &later),                // created and recurring: once
		repeated(since, "Unreachable", -time.Hour, 3, inIt),   // counted on in it
		repeated(since, "Unreachable", -time.Hour, 3, before), // counted on before it
		repeated(since, "Unreachable", -time.Hour, 1, inIt),   // once, before it
		repeated(since, "Submitted", 0, 1, firstSecond),       // in since's second
	}, since)
	want := map[string]int64{"Normal Deployed": 1, "Normal Recovered": 2, "Normal Started": 1, "Normal Unreachable": 1, "Normal Submitted": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("countEvents (-want +got):\n%s", diff)
	}
}

// repeated is a core/v1 Event (no eventTime, whole-second timestamps) created created after
// the second of since, seen count times, last at last.
func repeated(since time.Time, reason string, created time.Duration, count int32, last time.Time) eventsv1.Event {
	return eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(since.Truncate(time.Second).Add(created))},
		Type:       "Normal", Reason: reason, DeprecatedCount: count, DeprecatedLastTimestamp: metav1.NewTime(last),
	}
}

// eventAt is an Event that first occurred at (eventTime) and was stored a second later than
// the second it occurred in (creationTimestamp has whole seconds).
func eventAt(reason string, at time.Time) eventsv1.Event {
	return eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at.Truncate(time.Second))},
		EventTime:  metav1.NewMicroTime(at), Type: "Normal", Reason: reason,
	}
}

func TestStatusMB(t *testing.T) {
	status := "Name:\tflink-operator\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n"
	if rss, hwm, none := statusMB(status, "VmRSS:"), statusMB(status, "VmHWM:"), statusMB(status, "VmSwap:"); rss != 100 || hwm != 200 || none != 0 {
		t.Errorf("VmRSS %v, VmHWM %v, VmSwap %v MB; want 100, 200, 0", rss, hwm, none)
	}
}
