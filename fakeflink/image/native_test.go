package image

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStartNative(t *testing.T) {
	good := "jobmanager.memory.process.size: 1600m\ntaskmanager.memory.process.size: 1728m\n"
	app := good + "pipeline.jars: local:///opt/flink/examples/streaming/StateMachineExample.jar\n"
	cases := map[string]struct {
		pod     Pod
		want    *Process // Component, Application, Native and the keys of wantConf
		conf    map[string]string
		failure string
	}{
		"a native session JobManager": {
			pod:  Pod{Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-session"}, ConfFiles: conf(YAMLConfigFile, good)},
			want: &Process{Component: ComponentJobManager, Native: true},
		},
		"a native application JobManager builds its program from the configuration": {
			pod: Pod{
				Version: v120, Args: []string{"bash", "-c", "/opt/flink/bin/kubernetes-jobmanager.sh kubernetes-application"},
				ConfFiles: conf(YAMLConfigFile, app+"$internal.application.program-args: --a;b\n"), Jars: ExampleJars(),
			},
			want: &Process{Component: ComponentJobManager, Native: true, Application: true, Program: &Program{
				Jar: "/opt/flink/examples/streaming/StateMachineExample.jar", Class: "org.apache.flink.streaming.examples.statemachine.StateMachineExample", Args: []string{"--a", "b"},
			}},
		},
		"with HA the native JobManager advertises its pod IP": {
			pod: Pod{
				Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-session"},
				ConfFiles: conf(YAMLConfigFile, good+"high-availability.type: kubernetes\njobmanager.rpc.address: svc\n"), Env: map[string]string{PodIPEnv: "10.0.0.7"},
			},
			want: &Process{Component: ComponentJobManager, Native: true},
			conf: map[string]string{"jobmanager.rpc.address": "10.0.0.7"},
		},
		"a native TaskManager takes its resource id from the script's dynamic properties": {
			pod:  Pod{Version: v120, Args: []string{"bash", "-c", "kubernetes-taskmanager.sh -D taskmanager.resource-id=c-taskmanager-1-1"}, ConfFiles: conf(YAMLConfigFile, good)},
			want: &Process{Component: ComponentTaskManager, Native: true},
			conf: map[string]string{"taskmanager.resource-id": "c-taskmanager-1-1"},
		},
		"an unknown deployment target": {
			pod: Pod{Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh yarn"}, ConfFiles: conf(YAMLConfigFile, good)}, failure: nativeUsage,
		},
		"an application jar that is not in the image": {
			pod: Pod{
				Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-application"},
				ConfFiles: conf(YAMLConfigFile, good+"pipeline.jars: local:///opt/flink/usrlib/missing.jar\n"), Jars: ExampleJars(),
			},
			failure: "FlinkException: JAR file does not exist '/opt/flink/usrlib/missing.jar'",
		},
		"an application jar that is not local": {
			pod: Pod{
				Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-application"},
				ConfFiles: conf(YAMLConfigFile, good+"pipeline.jars: s3://b/job.jar\n"), Jars: ExampleJars(),
			},
			failure: "Only \"local\" is supported",
		},
		"a class the jar does not hold": {
			pod: Pod{
				Version: v120, Args: []string{"bash", "-c", "kubernetes-jobmanager.sh kubernetes-application"},
				ConfFiles: conf(YAMLConfigFile, app+"$internal.application.main: org.x.Nope\n"), Jars: ExampleJars(),
			},
			failure: "Could not find the provided job class (org.x.Nope)",
		},
		"a native TaskManager without memory refuses to start": {
			pod:     Pod{Version: v120, Args: []string{"bash", "-c", "kubernetes-taskmanager.sh"}, ConfFiles: conf(YAMLConfigFile, "rest.port: 8081\n")},
			failure: "need to be configured explicitly",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, f := Start(tc.pod)
			if tc.failure != "" {
				if f == nil || !strings.Contains(f.Error(), tc.failure) {
					t.Fatalf("failure = %v, want one containing %q", f, tc.failure)
				}
				return
			}
			if f != nil {
				t.Fatalf("failure %v", f)
			}
			got := &Process{Component: p.Component, Native: p.Native, Application: p.Application, Program: p.Program}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("process (-want +got):\n%s", diff)
			}
			for k, v := range tc.conf {
				if p.Config[k] != v {
					t.Errorf("%s = %q, want %q", k, p.Config[k], v)
				}
			}
		})
	}
}
