package fakeflink

import (
	"testing"
	"time"
)

// TestExceptionHistoryIsBounded: a job keeps its newest web.exception-history-size exceptions
// (16 by default), as Flink's exception history does; its restart count (numRestarts) counts
// them all.
func TestExceptionHistoryIsBounded(t *testing.T) {
	for _, tc := range []struct {
		conf []string
		want int
	}{{nil, 16}, {[]string{"web.exception-history-size", "3"}, 3}} {
		w := newWorld(t)
		c := w.app("bounded", statefulConf(tc.conf...))
		w.advance(5*time.Second, c)
		j := onlyJob(t, c)
		for range 20 {
			if err := c.FailJob(j.ID, "boom"); err != nil {
				t.Fatal(err)
			}
			w.advance(2*time.Second, c)
		}
		if len(j.Exceptions) != tc.want || j.Restarts() != 20 {
			t.Errorf("%v: %d exceptions kept, %d restarts; want %d and 20", tc.conf, len(j.Exceptions), j.Restarts(), tc.want)
		}
	}
}
