package rest_test

import "slices"

// specException is a documented place where Flink's real payloads (which the fake reproduces)
// differ from its generated OpenAPI spec; each difference is listed below with its reason.
type specException struct {
	operation string // "METHOD /path/{template}"
	contains  string // a substring of kin-openapi's validation error
	why       string
}

var specExceptions = slices.Concat(specExceptionsOfOneOperation, specExceptionsOfSeveralOperations)

var specExceptionsOfOneOperation = []specException{
	{
		"GET /taskmanagers", `at "/taskmanagers/0/id": string doesn't match the regular expression`,
		"ResourceID: TaskManager ids are free-form (the pod name on Kubernetes), not 32 hex characters",
	},
	{
		"GET /jobs/{jobid}/checkpoints/config", `at "/mode": value is not one of the allowed values`,
		"CheckpointConfigInfo.mode is serialized lower-case (exactly_once)",
	},
	{
		"GET /jobs/{jobid}/vertices/{vertexid}/subtasks/metrics", `parameter "agg" in query: at "/": value is not one of the allowed values`,
		"the aggregation modes are case-insensitive; clients send agg=sum,max",
	},
	{
		"GET /jobs/{jobid}", `/slotSharingGroupId": value must be an object`,
		"SlotSharingGroupId is serialized as a hex string",
	},
	{
		"PATCH /jobs/{jobid}", `parameter "mode" in query: at "/": value is not one of the allowed values`,
		"the termination mode is case-insensitive; clients send mode=cancel",
	},
	{
		"POST /jars/upload", `header Content-Type has unexpected value`,
		"jars are uploaded as multipart/form-data (field jarfile), not application/x-java-archive",
	},
	{
		"GET /jobs/{jobid}/savepoints/{triggerid}", `at "/operation"`,
		"operation is null while in progress, and its oneOf branches overlap (no required fields)",
	},
	{
		"GET /jobs/{jobid}/checkpoints/{triggerid}", `at "/operation"`,
		"operation is null while in progress, and its oneOf branches overlap (no required fields)",
	},
	{
		"GET /savepoint-disposal/{triggerid}", `at "/operation"`,
		"operation is null while in progress, and its oneOf branches overlap (no required fields)",
	},
	{
		"GET /datasets/delete/{triggerid}", `at "/operation"`,
		"the oneOf branches of operation overlap (no required fields)",
	},
	{
		"GET /taskmanagers/{taskmanagerid}", `at "/id": string doesn't match the regular expression`,
		"ResourceID: TaskManager ids are free-form (the pod name on Kubernetes), not 32 hex characters",
	},
	{
		"GET /jobs/{jobid}/rescales/details/{rescaleuuid}", `parameter "rescaleuuid" in path`,
		"the spec gives the rescale UUID an object schema; it is a string in the path",
	},
	{
		"POST /jars/{jarid}/run-application", `at "/applicationid": value must be an object`,
		"ApplicationID is serialized as a hex string",
	},
	{
		"GET /jobs/{jobid}/checkpoints", `/savepointFormat": Value is not nullable`,
		"savepointFormat is null for checkpoints",
	},
	{
		"GET /jobs/{jobid}/checkpoints", `at "/latest/completed": doesn't match all schemas from "allOf"`,
		"latest.completed is null when there is none, and its savepointFormat is null for checkpoints",
	},
	{
		"GET /jobs/{jobid}/checkpoints", `at "/latest/savepoint": doesn't match all schemas from "allOf"`,
		"latest.savepoint is null when there is none",
	},
	{
		"GET /jobs/{jobid}/checkpoints", `at "/latest/failed": doesn't match all schemas from "allOf"`,
		"latest.failed is null when no checkpoint failed",
	},
	{
		"GET /jobs/{jobid}/checkpoints", `at "/latest/restored": Value is not nullable`,
		"latest.restored is null when the job did not restore",
	},
	{
		"GET /jobs/{jobid}/checkpoints/details/{checkpointid}", `at "/savepointFormat": Value is not nullable`,
		"savepointFormat is null for checkpoints",
	},
}

// specExceptionsOfSeveralOperations are the differences shared by several operations.
var specExceptionsOfSeveralOperations = slices.Concat(
	sameException(`at "/": value must be an object`, "MetricCollectionResponseBody and AggregatedMetricsResponseBody are bare JSON arrays",
		"GET /jobs/{jobid}/metrics", "GET /jobs/{jobid}/vertices/{vertexid}/subtasks/metrics", "GET /jobmanager/metrics",
		"GET /jobs/metrics", "GET /taskmanagers/metrics", "GET /taskmanagers/{taskmanagerid}/metrics",
		"GET /jobs/{jobid}/vertices/{vertexid}/metrics", "GET /jobs/{jobid}/vertices/{vertexid}/jm-operator-metrics",
		"GET /jobs/{jobid}/vertices/{vertexid}/subtasks/{subtaskindex}/metrics", "GET /jobs/{jobid}/vertices/{vertexid}/watermarks"),
	sameException(`parameter "taskmanagerid" in path: at "/": string doesn't match the regular expression`,
		"ResourceID: TaskManager ids in paths are free-form too",
		"GET /taskmanagers/{taskmanagerid}", "GET /taskmanagers/{taskmanagerid}/logs", "GET /taskmanagers/{taskmanagerid}/metrics",
		"GET /taskmanagers/{taskmanagerid}/thread-dump", "GET /jobs/{jobid}/taskmanagers/{taskmanagerid}/log-url"),
	sameException(`parameter "applicationid" in path`, "ApplicationID is a hex string in paths (the spec gives it an object schema)",
		"GET /applications/{applicationid}", "GET /applications/{applicationid}/exceptions",
		"GET /applications/{applicationid}/jobmanager/config", "POST /applications/{applicationid}/cancel"),
	sameException(`at "/id": value must be an object`, "ApplicationID is serialized as a hex string",
		"GET /applications/{applicationid}"),
	sameException(`at "/applications/0/id": value must be an object`, "ApplicationID is serialized as a hex string",
		"GET /applications/overview"),
)

func sameException(contains, why string, operations ...string) []specException {
	var out []specException
	for _, op := range operations {
		out = append(out, specException{operation: op, contains: contains, why: why})
	}
	return out
}
