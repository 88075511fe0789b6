package image

import (
	"fmt"
	"maps"
	"strings"
)

// Components a pod can run.
const (
	ComponentJobManager  = "jobmanager"
	ComponentTaskManager = "taskmanager"
)

// Entrypoint commands of the official image's docker-entrypoint.sh.
const (
	CmdJobManager    = "jobmanager"
	CmdStandaloneJob = "standalone-job"
	CmdTaskManager   = "taskmanager"
	CmdHistory       = "history-server"
	CmdHelp          = "help"
)

// Paths of the official image.
const (
	FlinkHome = "/opt/flink"
	ConfDir   = FlinkHome + "/conf"
	UsrLib    = FlinkHome + "/usrlib"
)

// Logging configuration files the image's scripts point log4j and logback at.
const (
	Log4jConsole   = "log4j-console.properties"
	LogbackConsole = "logback-console.xml"
)

// Pod is what a Flink container starts from.
type Pod struct {
	// Version is the image's Flink version.
	Version Version
	// Args are the container's arguments (the image's entrypoint is kept).
	Args []string
	// Env are the container's environment variables.
	Env map[string]string
	// ConfFiles are the files of the configuration directory (FLINK_CONF_DIR).
	ConfFiles map[string]string
	// Jars are the jar files the container sees, by absolute path: the image's and any
	// mounted into it.
	Jars map[string]Jar
}

// Jar is a jar file's relevant contents.
type Jar struct {
	// MainClass is the manifest's program-class or Main-Class ("" for a library).
	MainClass string
	// Classes are the other classes it holds that a job may name.
	Classes []string
}

// Has reports whether the jar holds class.
func (j Jar) Has(class string) bool {
	if j.MainClass == class {
		return true
	}
	for _, c := range j.Classes {
		if c == class {
			return true
		}
	}
	return false
}

// Process is what Flink runs once a pod started.
type Process struct {
	// Component is ComponentJobManager or ComponentTaskManager.
	Component string
	// Application is set for an application cluster (standalone-job, kubernetes-application).
	Application bool
	// Native is set for a process of a native Kubernetes cluster (kubernetes-*.sh).
	Native bool
	// ConfigFile is the configuration file Flink read.
	ConfigFile string
	// Config is the effective configuration (the file plus -D dynamic properties).
	Config map[string]string
	// Program is the job an application cluster runs.
	Program *Program
	// Log are the notable lines Flink printed while starting (warnings, a logging fallback).
	Log []string
}

// Failure is a process that did not start: the exception Flink printed and its exit code.
type Failure struct { //nolint:errname // named after what a container does, as Process is
	// ExitCode is the container's exit code.
	ExitCode int
	// Class is the Java exception class ("" for a shell error).
	Class string
	// Message is the exception's message.
	Message string
	// Log is the tail of the container's output, ending with the exception.
	Log []string
}

func (f *Failure) Error() string {
	if f.Class == "" {
		return f.Message
	}
	return f.Class + ": " + f.Message
}

// Start applies the image's and Flink's startup rules to pod.
func Start(pod Pod) (*Process, *Failure) {
	if len(pod.Args) == 0 {
		return nil, &Failure{ExitCode: 0, Message: "Usage: docker-entrypoint.sh (jobmanager|standalone-job|taskmanager|history-server)", Log: []string{"Usage: $(basename $0) (jobmanager|standalone-job|taskmanager|history-server)"}}
	}
	if p, rest, failure, ok := nativeCommand(pod.Args); ok {
		if failure != nil {
			return nil, failure
		}
		return startNative(pod, p, rest)
	}
	p := &Process{}
	switch cmd := pod.Args[0]; cmd {
	case CmdJobManager:
		p.Component = ComponentJobManager
	case CmdStandaloneJob:
		p.Component, p.Application = ComponentJobManager, true
	case CmdTaskManager:
		p.Component = ComponentTaskManager
	case CmdHelp:
		return nil, &Failure{Message: "help printed", Log: []string{"Usage: $(basename $0) (jobmanager|standalone-job|taskmanager|history-server)"}}
	case CmdHistory:
		return nil, &Failure{ExitCode: 1, Message: "a history server runs no JobManager or TaskManager"}
	default:
		// Anything else is exec'ed as a command, which the image does not have.
		msg := fmt.Sprintf("/docker-entrypoint.sh: line 1: exec: %s: not found", cmd)
		return nil, &Failure{ExitCode: 127, Message: msg, Log: []string{msg}}
	}
	name, conf, warnings, err := ReadConfig(pod.Version, pod.ConfFiles)
	if err != nil {
		return nil, fail(1, "org.apache.flink.configuration.IllegalConfigurationException", "Error while loading the YAML configuration file: "+ConfDir+"/"+name+": "+err.Error())
	}
	p.ConfigFile, p.Log = name, warnings
	args := pod.Args[1:]
	p.Config = conf
	if !p.Application {
		rest, dynamic, failure := splitDynamic(args)
		if failure != nil {
			return nil, failure
		}
		args, p.Config = rest, WithDynamic(conf, dynamic)
		if len(args) > 0 && p.Component == ComponentJobManager {
			// jobmanager.sh start-foreground <host>: the JobManager binds and advertises
			// the host (--host, ClusterEntrypoint#loadConfiguration).
			p.Config = maps.Clone(p.Config)
			p.Config["jobmanager.rpc.address"] = args[0]
		}
	}
	if msg := CheckMemory(p.Component, p.Config); msg != "" {
		return nil, &Failure{ExitCode: 1, Class: ClassIllegalConfiguration, Message: msg, Log: []string{
			"[ERROR] Could not get JVM parameters and dynamic configurations properly.",
			"[ERROR] Raw output from BashJavaUtils:",
			"Exception in thread \"main\" " + ClassIllegalConfiguration + ": " + msg,
		}}
	}
	if p.Component == ComponentJobManager {
		// The REST endpoint starts with the JobManager: a bad SSL setting fails it.
		if _, err := RESTSSLOf(p.Config); err != nil {
			return nil, fail(1, ClassIllegalConfiguration, err.Error())
		}
	}
	p.Log = append(p.Log, loggingWarnings(pod.ConfFiles)...)
	if p.Application {
		p.Config = maps.Clone(p.Config) // its -D options land here
		prog, failure := applicationProgram(args, p.Config, pod.Jars)
		if failure != nil {
			return nil, failure
		}
		p.Program = prog
	}
	return p, nil
}

// loggingWarnings is what log4j prints when the console configuration the scripts name is
// not in the conf directory: it falls back to its default, which logs errors only.
func loggingWarnings(files map[string]string) []string {
	if _, ok := files[Log4jConsole]; ok {
		return nil
	}
	return []string{fmt.Sprintf("ERROR StatusLogger Reconfiguration failed: No configuration found for 'file:%s/%s' (only ERROR is logged)", ConfDir, Log4jConsole)}
}

// splitDynamic takes the -D key=value (or -Dkey=value) dynamic properties out of args.
func splitDynamic(args []string) (rest []string, dynamic map[string]string, failure *Failure) {
	dynamic = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-D" {
			if i+1 == len(args) {
				return nil, nil, fail(1, "org.apache.flink.runtime.entrypoint.FlinkParseException", "Failed to parse the command line arguments. Missing argument for option: D")
			}
			i++
			a = "-D" + args[i]
		}
		if kv, ok := strings.CutPrefix(a, "-D"); ok {
			k, v, found := strings.Cut(kv, "=")
			if !found || k == "" {
				return nil, nil, fail(1, "org.apache.flink.runtime.entrypoint.FlinkParseException", "Failed to parse the command line arguments. Dynamic property '"+kv+"' is not of the form key=value")
			}
			dynamic[k] = v
			continue
		}
		rest = append(rest, a)
	}
	return rest, dynamic, nil
}

func fail(code int, class, msg string) *Failure {
	return &Failure{ExitCode: code, Class: class, Message: msg, Log: []string{class + ": " + msg}}
}
