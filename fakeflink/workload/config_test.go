package workload

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFromConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		conf     map[string]string
		ok       bool
		vertices []Vertex
		restart  time.Duration
		err      bool
	}{
		"no input: no workload": {conf: map[string]string{KeyCapacities: "1,2"}},
		"defaults": {
			conf: map[string]string{KeyInput: "constant:10"}, ok: true, restart: DefaultRestartTime,
			vertices: []Vertex{{"Source: fake-source", 1000}, {"Sink: fake-sink", 2000}},
		},
		"three vertices and a restart time": {
			conf: map[string]string{KeyInput: "constant:10", KeyCapacities: "5, 6 ,7", KeyRestartTime: "45s"}, ok: true, restart: 45 * time.Second,
			vertices: []Vertex{{"Source: fake-source", 5}, {"Map 1", 6}, {"Sink: fake-sink", 7}},
		},
		"a bad schedule":     {conf: map[string]string{KeyInput: "constant:x"}, ok: true, err: true},
		"a zero capacity":    {conf: map[string]string{KeyInput: "constant:1", KeyCapacities: "1,0"}, ok: true, err: true},
		"too many vertices":  {conf: map[string]string{KeyInput: "constant:1", KeyCapacities: "1" + strings.Repeat(",1", MaxVertices)}, ok: true, err: true},
		"a negative restart": {conf: map[string]string{KeyInput: "constant:1", KeyRestartTime: "-1s"}, ok: true, err: true},
		"too long a restart": {conf: map[string]string{KeyInput: "constant:1", KeyRestartTime: "2h"}, ok: true, err: true},
	} {
		t.Run(name, func(t *testing.T) {
			spec, ok, err := FromConfig(tc.conf, time.ParseDuration)
			if ok != tc.ok || (err != nil) != tc.err {
				t.Fatalf("ok %v, err %v; want ok %v, an error %v", ok, err, tc.ok, tc.err)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.vertices, spec.Vertices); diff != "" {
				t.Errorf("vertices (-want +got):\n%s", diff)
			}
			if spec.RestartTime != tc.restart {
				t.Errorf("restart time %s, want %s", spec.RestartTime, tc.restart)
			}
		})
	}
}
