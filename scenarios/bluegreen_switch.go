package scenarios

import (
	"fmt"
	"time"

	"github.com/flinkop/flinkop/harness"
	"github.com/flinkop/flinkop/harness/fixtures"
	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
)

// BlueGreenSwitch runs one blue→green switch on backend b with every invariant checked after
// each step (B1–B5 and the children's own): a blue/green deployment in savepoint mode becomes
// ACTIVE_BLUE, a new image switches it to ACTIVE_GREEN, blue is gone, and green's job started
// from a savepoint holding at least the state blue's job had when the image changed.
func BlueGreenSwitch(b harness.Backend, seed int64) error {
	w := harness.NewWorldOn(b, seed)
	c := harness.NewChecker(w)
	c.WatchBlueGreen(blueGreenName)
	bg := fixtures.BlueGreen("", blueGreenName, BaseSpec())
	if err := w.ApplyBlueGreen(bg); err != nil {
		return err
	}
	children := []string{flinkv1beta1.Blue.ChildName(blueGreenName), flinkv1beta1.Green.ChildName(blueGreenName)}
	until := func(state flinkv1beta1.BlueGreenState) error {
		done := func() bool {
			got, err := w.GetBlueGreen(blueGreenName)
			return err == nil && got.Status.BlueGreenState == state && got.Status.JobStatus.State == flinkv1beta1.JobStatusRunning
		}
		if err := c.StepUntil(w.Now().Add(15*time.Minute), done, children...); err != nil {
			return fmt.Errorf("%w\n%s", err, w.Trace)
		}
		if !done() {
			return fmt.Errorf("not %s after 15 minutes\n%s", state, w.Trace)
		}
		return nil
	}
	if err := until(flinkv1beta1.BlueGreenActiveBlue); err != nil {
		return err
	}
	if err := c.StepUntil(w.Now().Add(time.Minute), nil, children...); err != nil {
		return err
	}
	jobs := w.Sim.Cluster(w.Namespace, children[0]).Jobs()
	if len(jobs) != 1 {
		return fmt.Errorf("blue runs %d jobs", len(jobs))
	}
	before := jobs[0].Offset(w.Now())
	bg.Spec.Template.Spec.Image = "flink:1.20.1"
	if err := w.ApplyBlueGreen(bg); err != nil {
		return err
	}
	if err := until(flinkv1beta1.BlueGreenActiveGreen); err != nil {
		return err
	}
	if err := c.StepUntil(w.Now().Add(30*time.Second), nil, children...); err != nil {
		return err
	}
	if _, err := w.Get(children[0]); err == nil {
		return fmt.Errorf("blue still exists after the switch\n%s", w.Trace)
	}
	green, err := w.Get(children[1])
	if err != nil {
		return err
	}
	starts := w.Sim.Cluster(w.Namespace, children[1]).Starts()
	if path := green.Spec.Job.InitialSavepointPath; path == "" || len(starts) == 0 || starts[0].RestorePath != path || starts[0].Offset < before {
		return fmt.Errorf("green's starts %+v: want the first from its savepoint %q at offset ≥ %d (blue's when the image changed)", starts, path, before)
	}
	return nil
}
