package image

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var v118, v120, v20 = Version{1, 18}, Version{1, 20}, Version{2, 0}

func conf(kv ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestStartRules holds one case per contract rule: a pod that breaks it fails as Flink fails
// (exception class, message, exit code), and a pod that keeps it starts.
func TestStartRules(t *testing.T) {
	jars := ExampleJars()
	jars[UsrLib+"/a.jar"] = Jar{MainClass: "org.a.Job"}
	good := "jobmanager.memory.process.size: 1600m\ntaskmanager.memory.process.size: 1728m\n"
	cases := map[string]struct {
		pod       Pod
		wantClass string
		wantMsg   string // a substring of the message
		wantCode  int
	}{
		"an unknown command is exec'ed and not found": {
			pod: Pod{Version: v120, Args: []string{"start-cluster"}}, wantMsg: "exec: start-cluster: not found", wantCode: 127,
		},
		"no memory size: the JobManager refuses to start": {
			pod:       Pod{Version: v120, Args: []string{"jobmanager"}, ConfFiles: conf(YAMLConfigFile, "rest.port: 8081\n")},
			wantClass: ClassIllegalConfiguration, wantCode: 1,
			wantMsg: "JobManager memory configuration failed: Either required fine-grained memory (jobmanager.memory.heap.size), or Total Flink Memory size (Key: 'jobmanager.memory.flink.size' , default: null (fallback keys: [])), or Total Process Memory size",
		},
		"a TaskManager process too small for metaspace and overhead": {
			pod:       Pod{Version: v120, Args: []string{"taskmanager"}, ConfFiles: conf(YAMLConfigFile, "taskmanager.memory.process.size: 400m\n")},
			wantClass: ClassIllegalConfiguration, wantCode: 1,
			wantMsg: "Sum of configured JVM Metaspace (256.000mb (268435456 bytes)) and JVM Overhead (192.000mb (201326592 bytes)) exceed configured Total Process Memory (400.000mb (419430400 bytes)).",
		},
		"a TaskManager process too small for its Flink memory components": {
			pod:       Pod{Version: v120, Args: []string{"taskmanager"}, ConfFiles: conf(YAMLConfigFile, "taskmanager.memory.process.size: 900m\n")},
			wantClass: ClassIllegalConfiguration, wantCode: 1, wantMsg: "exceed configured Total Flink Memory (452.000mb",
		},
		"a memory size that does not parse": {
			pod:       Pod{Version: v120, Args: []string{"jobmanager"}, ConfFiles: conf(YAMLConfigFile, "jobmanager.memory.process.size: 2Gi\n")},
			wantClass: ClassIllegalConfiguration, wantCode: 1, wantMsg: "Could not parse value '2Gi' for key 'jobmanager.memory.process.size'.",
		},
		"Flink 1.18 reads flink-conf.yaml line by line: YAML quotes stay in the value": {
			pod:       Pod{Version: v118, Args: []string{"jobmanager"}, ConfFiles: conf(LegacyConfigFile, "jobmanager.memory.process.size: \"1600m\"\n")},
			wantClass: ClassIllegalConfiguration, wantCode: 1, wantMsg: "Could not parse value '\"1600m\"'",
		},
		"Flink 1.18 ignores config.yaml": {
			pod:       Pod{Version: v118, Args: []string{"jobmanager"}, ConfFiles: conf(YAMLConfigFile, good)},
			wantClass: ClassIllegalConfiguration, wantCode: 1, wantMsg: "need to be configured explicitly",
		},
		"Flink 2 ignores flink-conf.yaml": {
			pod:       Pod{Version: v20, Args: []string{"taskmanager"}, ConfFiles: conf(LegacyConfigFile, good)},
			wantClass: ClassIllegalConfiguration, wantCode: 1, wantMsg: "need to be configured explicitly",
		},
		"a job class that is not on the user classpath": {
			pod: Pod{
				Version: v120, Args: []string{"standalone-job", "--job-classname", "org.b.Missing"}, Jars: jars,
				ConfFiles: conf(YAMLConfigFile, good),
			},
			wantClass: ClassFlink, wantCode: 1, wantMsg: "Could not find the provided job class (org.b.Missing) in the user lib directory (/opt/flink/usrlib).",
		},
		"pipeline.jars alone does not put a jar on the standalone classpath": {
			pod: Pod{
				Version: v120, Args: []string{"standalone-job", "--job-classname", "org.apache.flink.streaming.examples.statemachine.StateMachineExample"}, Jars: ExampleJars(),
				ConfFiles: conf(YAMLConfigFile, good+"pipeline.jars: local:///opt/flink/examples/streaming/StateMachineExample.jar\n"),
			},
			wantClass: ClassFlink, wantCode: 1, wantMsg: "Could not find the provided job class",
		},
		"a job id that is not 32 hex characters": {
			pod:       Pod{Version: v120, Args: []string{"standalone-job", "--job-id", "xyz"}, Jars: jars, ConfFiles: conf(YAMLConfigFile, good)},
			wantClass: classParse, wantCode: 1, wantMsg: "xyz is not a valid job id",
		},
		"the job class found in usrlib; program arguments after the options": {
			pod: Pod{Version: v120, Args: []string{"standalone-job", "--job-classname", "org.a.Job", "--input", "x"}, Jars: jars, ConfFiles: conf(YAMLConfigFile, good)},
		},
		"the job class found through pipeline.classpaths": {
			pod: Pod{
				Version: v118, Args: []string{"standalone-job", "--job-classname", "org.apache.flink.streaming.examples.statemachine.StateMachineExample"}, Jars: ExampleJars(),
				ConfFiles: conf(LegacyConfigFile, good+"pipeline.classpaths: file:///opt/flink/examples/streaming/StateMachineExample.jar\n"),
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			proc, f := Start(tc.pod)
			if tc.wantMsg == "" {
				if f != nil {
					t.Fatalf("failed: %v", f)
				}
				if proc.Component == "" {
					t.Fatal("no component")
				}
				return
			}
			if f == nil {
				t.Fatalf("started, want %s: %s", tc.wantClass, tc.wantMsg)
			}
			if f.Class != tc.wantClass || !strings.Contains(f.Message, tc.wantMsg) || f.ExitCode != tc.wantCode {
				t.Errorf("got %d %s: %s\nwant %d %s: …%s…", f.ExitCode, f.Class, f.Message, tc.wantCode, tc.wantClass, tc.wantMsg)
			}
			if last := f.Log[len(f.Log)-1]; !strings.Contains(last, tc.wantMsg) {
				t.Errorf("the log does not end with the failure: %q", last)
			}
		})
	}
}

func TestProgramArguments(t *testing.T) {
	jars := map[string]Jar{UsrLib + "/a.jar": {MainClass: "org.a.Job"}}
	proc, f := Start(Pod{
		Version: v120, Jars: jars, ConfFiles: conf(YAMLConfigFile, "jobmanager.memory.process.size: 1g\n"),
		Args: []string{"standalone-job", "--job-id", strings.Repeat("ab", 16), "-s", "file:///sp/1", "-n", "--input", "-s", "x"},
	})
	if f != nil {
		t.Fatal(f)
	}
	want := &Program{Jar: UsrLib + "/a.jar", Class: "org.a.Job", Args: []string{"--input", "-s", "x"}, JobID: strings.Repeat("ab", 16), FromSavepoint: "file:///sp/1"}
	if diff := cmp.Diff(want, proc.Program); diff != "" {
		t.Errorf("program (-want +got):\n%s", diff)
	}
}

func TestLegacyConfigParser(t *testing.T) {
	got, warnings := ParseLegacyConfig("a: 1\nb: \"2\"\nc: x # comment\n# whole line\nd:e\nf: \ng: x: y\n  h  :  spaced  \n")
	want := map[string]string{"a": "1", "b": `"2"`, "c": "x", "g": "x: y", "h": "spaced"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(warnings) != 2 {
		t.Errorf("want 2 warnings (no ': ', empty value), got %q", warnings)
	}
}

func TestMissingLoggingConfiguration(t *testing.T) {
	files := conf(YAMLConfigFile, "jobmanager.memory.process.size: 1g\n")
	proc, f := Start(Pod{Version: v120, Args: []string{"jobmanager"}, ConfFiles: files})
	if f != nil || len(proc.Log) != 1 || !strings.Contains(proc.Log[0], "StatusLogger") {
		t.Fatalf("want a start with log4j's fallback warning, got %v %v", proc, f)
	}
	files[Log4jConsole] = "rootLogger.level = INFO\n"
	if proc, _ := Start(Pod{Version: v120, Args: []string{"jobmanager"}, ConfFiles: files}); len(proc.Log) != 0 {
		t.Errorf("log with a logging configuration: %q", proc.Log)
	}
}

// TestHostArgumentIsTheAdvertisedAddress: a JobManager started with a host (standalone-job's
// --host, jobmanager's first argument, as jobmanager.sh passes it) binds and advertises it,
// whatever the configuration says.
func TestHostArgumentIsTheAdvertisedAddress(t *testing.T) {
	good := "jobmanager.memory.process.size: 1600m\njobmanager.rpc.address: shared-service\n"
	for name, args := range map[string][]string{
		"application": {"standalone-job", "--job-classname", "org.a.Job", "--host", "10.1.2.3"},
		"session":     {"jobmanager", "10.1.2.3"},
	} {
		p, failure := Start(Pod{Version: v120, Args: args, ConfFiles: conf(YAMLConfigFile, good), Jars: map[string]Jar{UsrLib + "/a.jar": {MainClass: "org.a.Job"}}})
		if failure != nil {
			t.Fatalf("%s: %v", name, failure)
		}
		if got := p.Config["jobmanager.rpc.address"]; got != "10.1.2.3" {
			t.Errorf("%s: jobmanager.rpc.address %q; want the host argument 10.1.2.3", name, got)
		}
	}
}
