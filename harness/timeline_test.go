package harness

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

// sampleTrace is a small run: a deployment that starts, takes a checkpoint and a savepoint,
// loses its JobManager (a fault), restores its savepoint, warns, and breaks an invariant.
func sampleTrace(violation bool) *Trace {
	tr := &Trace{start: Start, Header: []string{"sweep seed 7, 50 steps", "replay: flinksim replay --seed 7 --steps 50"}}
	at := func(s int) time.Time { return Start.Add(time.Duration(s) * time.Second) }
	tr.add(at(0), "spec", "job", "applied generation 1")
	tr.State(at(0), "job", LaneLifecycle, "DEPLOYED")
	tr.State(at(0), "job", LaneJobManager, "DEPLOYING")
	tr.State(at(5), "job", LaneJobManager, "READY")
	tr.State(at(5), "job", LaneJob, "RUNNING")
	tr.State(at(6), "job", LaneLifecycle, "STABLE")
	tr.Mark(at(5), "job", MarkRestore, 0, "job j1 started from empty state")
	tr.Mark(at(30), "job", MarkCheckpoint, 300, "checkpoint 1")
	tr.Mark(at(50), "job", MarkSavepoint, 500, "savepoint 2")
	tr.add(at(60), "fault", "job", "jm-crash <script>")
	tr.State(at(60), "job", LaneJob, "RESTARTING")
	tr.Mark(at(70), "job", MarkRestore, 500, "job j1 restored savepoint 2")
	tr.State(at(70), "job", LaneJob, "RUNNING")
	tr.add(at(70), "event", "job", "Normal JobStatusChanged: RUNNING")
	tr.add(at(80), "event", "job", "Warning SavepointFailed: timed out")
	if violation {
		tr.add(at(90), "violation", "job", "invariant 1: job j1 started from offset 0 after a savepoint at 500")
	}
	tr.Offset(at(100), "job", 1500)
	return tr
}

func TestTimelineHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleTrace(true).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "<script>") {
		t.Error("entry text is not escaped")
	}
	if !strings.Contains(page, "replay: flinksim replay --seed 7 --steps 50") {
		t.Error("the header does not carry the replay command")
	}
	got := map[string]int{}
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("bad HTML: %v", z.Err())
			}
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, _ := z.TagName()
		attrs := map[string]string{}
		for {
			k, v, more := z.TagAttr()
			attrs[string(k)] = string(v)
			if !more {
				break
			}
		}
		switch {
		case attrs["class"] == "band":
			got["band "+attrs["data-lane"]]++
		case attrs["class"] == "mark" || attrs["class"] == "annotation":
			got[attrs["class"]+" "+attrs["data-kind"]]++
		case string(name) == "tr":
			got["row "+attrs["class"]]++
		case attrs["class"] == "offset":
			got["offset line"]++
		}
	}
	want := map[string]int{
		"band lifecycle": 2, "band JobManager": 2, "band job": 3, "offset line": 1,
		"mark restore": 2, "mark checkpoint": 1, "mark savepoint": 1, "mark normal": 1, "mark warning": 1,
		"annotation spec": 1, "annotation fault": 1, "annotation violation": 1,
		"row ": 1, "row spec": 1, "row fault": 1, "row event": 1, "row warning": 1, "row violation": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeline shapes (-want +got):\n%s", diff)
	}
}

func TestTraceBands(t *testing.T) {
	tr := &Trace{start: Start}
	at := func(s int) time.Time { return Start.Add(time.Duration(s) * time.Second) }
	tr.State(at(0), "a", LaneJob, "CREATED")
	tr.State(at(1), "a", LaneJob, "CREATED") // unchanged: the band goes on
	tr.State(at(2), "a", LaneJob, "RUNNING")
	tr.State(at(3), "b", LaneJob, "RUNNING")
	tr.State(at(4), "a", LaneJob, "") // gone: the band ends, none begins
	want := []Band{
		{Resource: "a", Lane: LaneJob, Value: "CREATED", From: at(0), To: at(2)},
		{Resource: "a", Lane: LaneJob, Value: "RUNNING", From: at(2), To: at(4)},
		{Resource: "b", Lane: LaneJob, Value: "RUNNING", From: at(3)},
	}
	if diff := cmp.Diff(want, tr.Bands); diff != "" {
		t.Errorf("bands (-want +got):\n%s", diff)
	}
}
