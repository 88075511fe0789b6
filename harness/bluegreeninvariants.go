package harness

import (
	"context"
	"fmt"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/flinkop/flinkop/fakeflink"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/bluegreen"
)

// blueGreenState is what the checker remembers of one FlinkBlueGreenDeployment.
type blueGreenState struct {
	// served is set once a child was ready: from then on one child always exists (B2).
	served bool
	// children are the children seen at the last check, by colour.
	children map[flinkv1beta1.BlueGreenColor]childSeen
	// switchAt is when the last change a switch may act on was applied (B3): a change seen
	// while a child was active, or while the only child was being deployed or patched;
	// generation and uid are the resource's as seen last.
	switchAt   time.Time
	generation int64
	uid        string
	state      flinkv1beta1.BlueGreenState
}

// childSeen is a child as the checker last saw it.
type childSeen struct {
	uid         string
	live, ready bool
	everReady   bool // ready at some check since it was created
	jobID       string
}

// WatchBlueGreen makes the checker hold the FlinkBlueGreenDeployment name to invariants
// B1–B5 after every step.
func (c *Checker) WatchBlueGreen(name string) {
	if c.blueGreens == nil {
		c.blueGreens = map[string]*blueGreenState{}
	}
	c.blueGreens[name] = &blueGreenState{children: map[flinkv1beta1.BlueGreenColor]childSeen{}}
}

// checkBlueGreens checks the watched blue/green deployments.
func (c *Checker) checkBlueGreens() []string {
	var out []string
	for name, st := range c.blueGreens {
		out = append(out, c.checkBlueGreen(name, st)...)
	}
	return out
}

// BlueGreenView is what the blue/green invariants read of one resource at one check.
type BlueGreenView struct {
	// Exists is false once the resource is gone.
	Exists     bool
	UID        string
	State      flinkv1beta1.BlueGreenState
	Generation int64
	// Children are the FlinkDeployments the resource controls, by colour.
	Children map[flinkv1beta1.BlueGreenColor]*flinkv1beta1.FlinkDeployment
	// RunningJobs counts the jobs running on the children's clusters.
	RunningJobs int
	// Savepoint looks a savepoint up in the checkpoint storage.
	Savepoint func(path string) (fakeflink.Snapshot, bool)
	// IngressService is the REST Service the resource's Ingress routes to ("": none).
	IngressService string
	// TemplateSavepoint is the template's initialSavepointPath.
	TemplateSavepoint string
	Now               time.Time
}

func (c *Checker) checkBlueGreen(name string, st *blueGreenState) []string {
	v := BlueGreenView{Children: map[flinkv1beta1.BlueGreenColor]*flinkv1beta1.FlinkDeployment{}, Now: c.w.Now(), Savepoint: c.w.Sim.Store.Get}
	b, err := c.w.GetBlueGreen(name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return []string{fmt.Sprintf("%s: read: %v", name, err)}
	default:
		v.Exists, v.UID, v.State, v.Generation = true, string(b.UID), b.Status.BlueGreenState, b.Generation
		if t := b.Spec.Template.Spec; t != nil && t.Job != nil {
			v.TemplateSavepoint = t.Job.InitialSavepointPath
		}
	}
	var ing networkingv1.Ingress
	if err := c.w.Client.Get(context.Background(), client.ObjectKey{Namespace: c.w.Namespace, Name: name}, &ing); err == nil {
		if ref := metav1.GetControllerOf(&ing); ref != nil && ref.Kind == "FlinkBlueGreenDeployment" && len(ing.Spec.Rules) > 0 {
			if h := ing.Spec.Rules[0].HTTP; h != nil && len(h.Paths) > 0 && h.Paths[0].Backend.Service != nil {
				v.IngressService = h.Paths[0].Backend.Service.Name
			}
		}
	}
	for _, col := range []flinkv1beta1.BlueGreenColor{flinkv1beta1.Blue, flinkv1beta1.Green} {
		d, err := c.w.Get(col.ChildName(name))
		if err != nil {
			continue
		}
		if ref := metav1.GetControllerOf(d); ref == nil || ref.Kind != "FlinkBlueGreenDeployment" || ref.Name != name {
			continue
		}
		v.Children[col] = d
		if cl := c.w.Sim.Cluster(c.w.Namespace, d.Name); cl != nil {
			for _, j := range cl.Jobs() {
				if j.Status == fakeflink.StatusRunning {
					v.RunningJobs++
				}
			}
		}
	}
	return st.Check(name, v)
}

// Check holds one view of a blue/green deployment to the invariants, against what was seen
// before, and remembers it:
//
//   - B1: at most two children, and at most two jobs running on their clusters;
//   - B2: once a child was ready, a child exists that is not being deleted, as long as the
//     resource does (no gap in service);
//   - B3: a child deployed by a switch from a savepoint (not the template's) restores from a
//     savepoint of the job the active child ran when the change was applied, completed after
//     that (the change that starts a switch is applied while a child is active);
//   - B4: a child that has served (was ready) is deleted only while the other child is ready:
//     a failed new child never removes the serving one.
func (st *blueGreenState) Check(name string, v BlueGreenView) []string {
	var out []string
	if len(v.Children) > 2 || v.RunningJobs > 2 {
		out = append(out, fmt.Sprintf("%s: %d children with %d running jobs: at most two of each (invariant B1)", name, len(v.Children), v.RunningJobs))
	}
	st.noteChange(v)
	now, fresh := st.see(name, v)
	out = append(out, fresh...)
	out = append(out, st.deletedWhileServing(name, now, v)...)
	if v.Exists && v.IngressService != "" {
		for _, col := range []flinkv1beta1.BlueGreenColor{flinkv1beta1.Blue, flinkv1beta1.Green} {
			if v.IngressService == col.ChildName(name)+"-rest" && !now[col].live && now[col.Other()].live {
				out = append(out, fmt.Sprintf("%s: its Ingress routes to %s, which is gone or going, while %s runs (invariant B5)", name, col.ChildName(name), col.Other().ChildName(name)))
			}
		}
	}
	if v.Exists && st.served && liveCount(now) == 0 {
		out = append(out, fmt.Sprintf("%s: no child left that is not being deleted, after one served (invariant B2: no gap in service)", name))
	}
	st.children = now
	return out
}

// noteChange remembers when a change was applied (since the last check) that a switch may act
// on: one applied while a child was active, or while the only child was being deployed or
// patched (a change applied during a savepoint or a switch takes no new savepoint). A new
// resource of the same name starts afresh.
func (st *blueGreenState) noteChange(v BlueGreenView) {
	if v.Exists && v.UID != st.uid {
		*st = blueGreenState{children: map[flinkv1beta1.BlueGreenColor]childSeen{}, uid: v.UID}
	}
	if v.Generation != st.generation {
		switch st.state {
		case flinkv1beta1.BlueGreenActiveBlue, flinkv1beta1.BlueGreenActiveGreen:
			st.switchAt = v.Now
		case flinkv1beta1.BlueGreenTransitioningToBlue, flinkv1beta1.BlueGreenTransitioningToGreen:
			if liveCount(st.children) <= 1 {
				st.switchAt = v.Now
			}
		}
	}
	st.generation, st.state = v.Generation, v.State
}

// liveCount counts the live children.
func liveCount(children map[flinkv1beta1.BlueGreenColor]childSeen) int {
	n := 0
	for _, c := range children {
		if c.live {
			n++
		}
	}
	return n
}

// see summarises the children of v, checking B3 for each new one.
func (st *blueGreenState) see(name string, v BlueGreenView) (map[flinkv1beta1.BlueGreenColor]childSeen, []string) {
	var out []string
	now := map[flinkv1beta1.BlueGreenColor]childSeen{}
	for col, d := range v.Children {
		seen := childSeen{uid: string(d.UID), live: d.DeletionTimestamp == nil, ready: bluegreen.Ready(d), jobID: d.Status.JobStatus.JobID}
		prev, known := st.children[col]
		if known && prev.uid == seen.uid {
			seen.everReady = prev.everReady
		} else if p := d.Spec.Job.InitialSavepointPath; seen.live && p != "" && p != v.TemplateSavepoint {
			source := ""
			if o := v.Children[col.Other()]; o != nil {
				source = o.Status.JobStatus.JobID
			}
			out = append(out, st.restoresFresh(name, d.Name, p, source, v)...)
		}
		seen.everReady = seen.everReady || seen.ready
		st.served = st.served || seen.ready
		now[col] = seen
	}
	return now, out
}

// deletedWhileServing checks B4: a child that served and is now gone or going had its
// counterpart ready, before or now.
func (st *blueGreenState) deletedWhileServing(name string, now map[flinkv1beta1.BlueGreenColor]childSeen, v BlueGreenView) []string {
	var out []string
	for col, prev := range st.children {
		cur, ok := now[col]
		gone := !ok || cur.uid != prev.uid || !cur.live
		if !gone || !prev.live || !prev.everReady || !v.Exists {
			continue
		}
		if !now[col.Other()].ready && !st.children[col.Other()].ready {
			out = append(out, fmt.Sprintf("%s: %s, which served, was deleted while %s was not ready (invariant B4)", name, col.ChildName(name), col.Other().ChildName(name)))
		}
	}
	return out
}

// restoresFresh checks B3 for a new child that starts from path, against source, the job the
// other (active) child runs.
func (st *blueGreenState) restoresFresh(name, child, path, source string, v BlueGreenView) []string {
	snap, ok := v.Savepoint(path)
	switch {
	case !ok:
		return []string{fmt.Sprintf("%s: %s starts from %s, which is not in the checkpoint storage (invariant B3)", name, child, path)}
	case snap.Kind != fakeflink.KindSavepoint:
		return []string{fmt.Sprintf("%s: %s starts from %s, a %s, not a savepoint (invariant B3)", name, child, path, snap.Kind)}
	case st.switchAt.IsZero():
		return []string{fmt.Sprintf("%s: %s starts from savepoint %s, but no change asked for a switch (invariant B3)", name, child, path)}
	case snap.JobID != source || snap.Time.Before(st.switchAt):
		return []string{fmt.Sprintf("%s: %s starts from savepoint %s of job %s taken at %s; the change was applied at %s and the active child runs job %s (invariant B3: a savepoint taken after the active child's last state change)",
			name, child, path, snap.JobID, snap.Time.Format(time.RFC3339), st.switchAt.Format(time.RFC3339), source)}
	}
	return nil
}
