package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// Transition is a change of a FlinkDeployment's or a FlinkSessionJob's status.lifecycleState
// the checker saw between two checks ("" for From: the resource had none yet; "" for To: it is gone).
type Transition struct {
	From, To flinkv1beta1.LifecycleState
}

// transitions records the lifecycle transitions of the FlinkDeployments the checker checks, each
// with the reasons of the Events the resource got in the steps that made it: the state diagram
// as the operator really walks it (Transitions).
type transitions struct {
	last   map[string]flinkv1beta1.LifecycleState
	seen   map[Transition]map[string]bool
	events int // Events of the world already read
	recent map[string][]string
}

// noteEvents reads the world's Events since the last check, by resource.
func (t *transitions) noteEvents(w *World) {
	t.recent = map[string][]string{}
	for _, e := range w.events.events[t.events:] {
		t.recent[e.Object] = append(t.recent[e.Object], e.Reason)
	}
	t.events = len(w.events.events)
}

// note records the lifecycle of resource name now (gone: "").
func (t *transitions) note(name string, now flinkv1beta1.LifecycleState) {
	if t.last == nil {
		t.last, t.seen = map[string]flinkv1beta1.LifecycleState{}, map[Transition]map[string]bool{}
	}
	prev, known := t.last[name]
	if known && prev == now || !known && now == "" {
		return
	}
	tr := Transition{From: prev, To: now}
	if t.seen[tr] == nil {
		t.seen[tr] = map[string]bool{}
	}
	for _, r := range t.recent[name] {
		t.seen[tr][r] = true
	}
	if now == "" {
		delete(t.last, name)
	} else {
		t.last[name] = now
	}
}

// Transitions are the lifecycle transitions seen so far, each with the Event reasons of the
// steps that made it, sorted.
func (c *Checker) Transitions() map[Transition][]string {
	out := map[Transition][]string{}
	for tr, reasons := range c.lifecycles.seen {
		out[tr] = slices.Sorted(maps.Keys(reasons))
	}
	return out
}

// SessionJobTransitions are the lifecycle transitions of the session jobs of the session
// clusters the checker watches, as Transitions.
func (c *Checker) SessionJobTransitions() map[Transition][]string {
	out := map[Transition][]string{}
	for tr, reasons := range c.sessionLifecycles.seen {
		out[tr] = slices.Sorted(maps.Keys(reasons))
	}
	return out
}

// MermaidDiagram renders transitions as a Mermaid state diagram, an edge per transition
// labelled with the Event reasons that came with it (those in common omitted: listed in
// ignore), in a stable order.
func MermaidDiagram(trs map[Transition][]string, ignore map[string]bool) string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	keys := slices.SortedFunc(maps.Keys(trs), func(a, b Transition) int {
		return strings.Compare(string(a.From)+">"+string(a.To), string(b.From)+">"+string(b.To))
	})
	for _, tr := range keys {
		from, to := string(tr.From), string(tr.To)
		if from == "" {
			from = "[*]"
		}
		if to == "" {
			to = "[*]"
		}
		reasons := slices.DeleteFunc(slices.Clone(trs[tr]), func(r string) bool { return ignore[r] })
		if len(reasons) == 0 {
			fmt.Fprintf(&b, "    %s --> %s\n", from, to)
			continue
		}
		fmt.Fprintf(&b, "    %s --> %s: %s\n", from, to, strings.Join(reasons, ", "))
	}
	return b.String()
}
