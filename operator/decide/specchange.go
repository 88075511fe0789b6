package decide

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// SpecChangedMessage is the SpecChanged Event's message for a FlinkDeployment spec change, in
// the Apache operator's form: "UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[
// job.parallelism : 2 -> 4]), starting reconciliation." It names each changed value, old and
// new (see describeChanges), for the fields Diff reported.
func SpecChangedMessage(diff DiffType, old, new flinkv1beta1.FlinkDeploymentSpec, fields []string) string {
	return specChanged(diff, "FlinkDeploymentSpec", deploymentFields(old), deploymentFields(new), fields)
}

// SessionJobSpecChangedMessage is SpecChangedMessage for a FlinkSessionJob.
func SessionJobSpecChangedMessage(diff DiffType, old, new flinkv1beta1.FlinkSessionJobSpec, fields []string) string {
	return specChanged(diff, "FlinkSessionJobSpec", sessionJobFields(old), sessionJobFields(new), fields)
}

func specChanged(diff DiffType, kind string, old, new map[string]any, fields []string) string {
	return fmt.Sprintf("%s change(s) detected (Diff: %s[%s]), starting reconciliation.", diff, kind, describeChanges(old, new, fields))
}

// The bounds of a SpecChanged message: it is read in `kubectl describe`, and a spec is the
// tenant's to make as large as the API server takes.
const (
	maxListedChanges = 10
	maxValueLen      = 64
	maxChangesBytes  = 700 // with the rest of the message, within the 1,024 bytes of an Event's
)

// describeChanges lists "field : old -> new" for the changed fields, a changed object or list
// field by each leaf that changed (podTemplate.spec.containers.0.image), as the Apache
// operator does. An unset value reads "null"; the value of a key Flink treats as sensitive
// reads "******" (sensitive); long values are cut, and the list stops after maxListedChanges.
func describeChanges(old, new map[string]any, fields []string) string {
	var all []string
	for _, f := range fields {
		leafChanges(&all, f, old[f], new[f], false)
	}
	var out []string
	size := 0
	for _, c := range all {
		if len(out) == maxListedChanges || size+len(c) > maxChangesBytes {
			out = append(out, fmt.Sprintf("and %d more", len(all)-len(out)))
			break
		}
		out = append(out, c)
		size += len(c) + 2
	}
	return strings.Join(out, ", ")
}

// leafChanges appends "path : a -> b" for each leaf under path where a and b differ; hide
// hides the values (an entry named like a secret: an environment variable DB_PASSWORD).
func leafChanges(out *[]string, path string, a, b any, hide bool) {
	am, aMap := a.(map[string]any)
	bm, bMap := b.(map[string]any)
	if aMap && bMap {
		hide = hide || namedSensitive(am) || namedSensitive(bm)
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(am, bm))) {
			leafChanges(out, path+"."+k, am[k], bm[k], hide)
		}
		return
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	if aList && bList && len(al) == len(bl) {
		for i := range al {
			leafChanges(out, path+"."+strconv.Itoa(i), al[i], bl[i], hide)
		}
		return
	}
	if jsonEqual(a, b) {
		return
	}
	hide = hide || sensitive(path)
	*out = append(*out, path+" : "+shown(a, hide)+" -> "+shown(b, hide))
}

// shown is valueText(v), or hiddenContent for a set value that is hidden or holds a secret.
func shown(v any, hide bool) string {
	if v != nil && (hide || sensitiveInside(v)) {
		return hiddenContent
	}
	return valueText(v)
}

// secretText reports whether a string value may hold a secret: it names a sensitive key
// (an argument --db-password=…), or it is a URL with user info or a query (a signed URL).
func secretText(s string) bool {
	if sensitive(s) {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.User != nil || u.RawQuery != "")
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// valueText renders a spec value: a string as it is, an unset one as null, anything else
// as compact JSON; cut to maxValueLen runes.
func valueText(v any) string {
	var s string
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		s = t
		if s == "" {
			s = `""`
		}
	default:
		raw, _ := json.Marshal(t)
		s = string(raw)
	}
	if utf8.RuneCountInString(s) > maxValueLen {
		s = string([]rune(s)[:maxValueLen]) + "…"
	}
	return s
}

// hiddenContent is what Flink prints for the value of a sensitive key.
const hiddenContent = "******"

// sensitiveKeys are the fragments that make a configuration key sensitive in Flink
// (GlobalConfiguration.isSensitive): a key containing one, in lower case, has its value
// hidden in Flink's logs and REST API. The operator hides it in its Events the same way.
var sensitiveKeys = []string{
	"password", "secret", "fs.azure.account.key", "apikey", "auth-params", "service-key", "token",
	"basic-auth", "jaas.config", "http-headers",
}

// namedSensitive reports whether an object is a named entry whose name is sensitive.
func namedSensitive(m map[string]any) bool {
	name, ok := m["name"].(string)
	return ok && sensitive(name)
}

// sensitiveInside reports whether a whole object or list shown as a value holds a sensitive
// key or named entry anywhere.
func sensitiveInside(v any) bool {
	switch t := v.(type) {
	case string:
		return secretText(t)
	case map[string]any:
		if namedSensitive(t) {
			return true
		}
		for k, x := range t {
			if sensitive(k) || sensitiveInside(x) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(t, sensitiveInside)
	}
	return false
}

// sensitive reports whether a field path, a name or a value names a sensitive key (see
// sensitiveKeys), in any case, an underscore read as a hyphen (API_KEY, BASIC_AUTH) and
// api-key as apikey.
func sensitive(path string) bool {
	lower := strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(path), "_", "-"), "api-key", "apikey")
	for _, k := range sensitiveKeys {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}
