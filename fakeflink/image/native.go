package image

import (
	"fmt"
	"maps"
	"path"
	"strings"
)

// Scripts and deployment targets of a native Kubernetes cluster: Flink's decorators start its
// containers as `bash -c "<script> <arguments>"` (KubernetesUtils#getStartCommandWithBashWrapper),
// which the image's entrypoint runs as it is.
const (
	ScriptJobManager  = "kubernetes-jobmanager.sh"
	ScriptTaskManager = "kubernetes-taskmanager.sh"
	TargetSession     = "kubernetes-session"
	TargetApplication = "kubernetes-application"
	PodIPEnv          = "_POD_IP_ADDRESS"
	nativeUsage       = "Usage: kubernetes-jobmanager.sh (kubernetes-session|kubernetes-application) [args]"
)

// nativeCommand reads `bash -c "<script> …"`: the native JobManager or TaskManager it starts
// and the script's arguments; ok is false for anything else.
func nativeCommand(args []string) (p *Process, rest []string, failure *Failure, ok bool) {
	if len(args) != 3 || args[0] != "bash" || args[1] != "-c" {
		return nil, nil, nil, false
	}
	words := strings.Fields(args[2])
	if len(words) == 0 {
		return nil, nil, nil, false
	}
	switch path.Base(words[0]) {
	case ScriptTaskManager:
		return &Process{Component: ComponentTaskManager, Native: true}, words[1:], nil, true
	case ScriptJobManager:
		if len(words) < 2 || (words[1] != TargetSession && words[1] != TargetApplication) {
			return nil, nil, &Failure{ExitCode: 1, Message: nativeUsage, Log: []string{nativeUsage}}, true
		}
		return &Process{Component: ComponentJobManager, Native: true, Application: words[1] == TargetApplication}, words[2:], nil, true
	}
	return nil, nil, nil, false
}

// nativeJobManagerConfig is KubernetesEntrypointUtils#loadConfiguration: with HA, the
// JobManager binds and advertises its pod IP.
func nativeJobManagerConfig(conf map[string]string, env map[string]string) map[string]string {
	ha := conf["high-availability.type"]
	if ha == "" {
		ha = conf["high-availability"]
	}
	if ip := env[PodIPEnv]; ip != "" && ha != "" && !strings.EqualFold(ha, "none") {
		conf = maps.Clone(conf)
		conf["jobmanager.rpc.address"] = ip
	}
	return conf
}

// nativeProgram is the program KubernetesApplicationClusterEntrypoint builds from the
// configuration: the one local:// jar of pipeline.jars, the class of
// $internal.application.main (else the jar's manifest) and the arguments of
// $internal.application.program-args.
func nativeProgram(conf map[string]string, jars map[string]Jar) (*Program, *Failure) {
	uris := strings.Split(strings.TrimSpace(conf["pipeline.jars"]), ";")
	if len(uris) != 1 || uris[0] == "" {
		return nil, programFailure("Should only have one jar")
	}
	p, ok := strings.CutPrefix(uris[0], "local://")
	if !ok {
		return nil, programFailure(fmt.Sprintf("Only \"local\" is supported as schema for application mode. This assumes that the jar is located in the image, not the Flink client. An example of such path is: local:///opt/flink/examples/streaming/WindowJoin.jar (got %s)", uris[0]))
	}
	jar, exists := jars[p]
	if !exists {
		return nil, programFailure(fmt.Sprintf("JAR file does not exist '%s'", p))
	}
	class := conf["$internal.application.main"]
	if class == "" {
		class = jar.MainClass
	}
	if class == "" || !jar.Has(class) {
		return nil, programFailure(fmt.Sprintf("Could not find the provided job class (%s) in %s.", class, p))
	}
	prog := &Program{Jar: p, Class: class, JobID: conf["$internal.pipeline.job-id"], FromSavepoint: conf["execution.savepoint.path"]}
	if args := conf["$internal.application.program-args"]; args != "" {
		prog.Args = strings.Split(args, ";")
	}
	return prog, nil
}

// startNative starts a native JobManager or TaskManager: the configuration file plus the
// script's dynamic properties, Flink's memory and SSL checks, and an application's program.
func startNative(pod Pod, p *Process, args []string) (*Process, *Failure) {
	name, conf, warnings, err := ReadConfig(pod.Version, pod.ConfFiles)
	if err != nil {
		return nil, fail(1, "org.apache.flink.configuration.IllegalConfigurationException", "Error while loading the YAML configuration file: "+ConfDir+"/"+name+": "+err.Error())
	}
	_, dynamic, failure := splitDynamic(args)
	if failure != nil {
		return nil, failure
	}
	p.ConfigFile, p.Log, p.Config = name, warnings, WithDynamic(conf, dynamic)
	if msg := CheckMemory(p.Component, p.Config); msg != "" {
		return nil, &Failure{ExitCode: 1, Class: ClassIllegalConfiguration, Message: msg, Log: []string{
			"[ERROR] Could not get JVM parameters and dynamic configurations properly.",
			"Exception in thread \"main\" " + ClassIllegalConfiguration + ": " + msg,
		}}
	}
	p.Log = append(p.Log, loggingWarnings(pod.ConfFiles)...)
	if p.Component != ComponentJobManager {
		return p, nil
	}
	p.Config = nativeJobManagerConfig(p.Config, pod.Env)
	if _, err := RESTSSLOf(p.Config); err != nil {
		return nil, fail(1, ClassIllegalConfiguration, err.Error())
	}
	if p.Application {
		prog, failure := nativeProgram(p.Config, pod.Jars)
		if failure != nil {
			return nil, failure
		}
		p.Program = prog
	}
	return p, nil
}
