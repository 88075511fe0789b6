package harness

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

func TestTimelineHTML(t *testing.T) {
	tr := &Trace{start: Start}
	tr.add(Start, "spec", "job", "applied generation 1")
	tr.add(Start.Add(time.Minute), "fault", "job", "jm-crash <script>")
	tr.add(Start.Add(2*time.Minute), "event", "job", "Normal Deploy: Deploying")
	var buf bytes.Buffer
	if err := tr.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(page, "<script>") {
		t.Error("entry text is not escaped")
	}
	z := html.NewTokenizer(strings.NewReader(page))
	circles, rows := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("bad HTML: %v", z.Err())
			}
			break
		}
		name, _ := z.TagName()
		if tt == html.StartTagToken || tt == html.SelfClosingTagToken {
			switch string(name) {
			case "circle":
				circles++
			case "tr":
				rows++
			}
		}
	}
	if circles != 3 || rows != 4 {
		t.Errorf("%d dots and %d table rows, want 3 and 4 (with the header)", circles, rows)
	}
}
