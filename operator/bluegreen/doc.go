// Package bluegreen is the FlinkBlueGreenDeployment state machine: a pure function from the
// resource, its status, its two children (FlinkDeployments <name>-blue and <name>-green) and
// the savepoint a switch takes, to one action (deploy or delete a child, trigger a savepoint of
// the active one, or create, move or delete the resource's Ingress), the new status, the
// events and when to look again.
//
// A change to spec.template.spec that needs a new deployment switches colour: the active
// child's job is savepointed (unless the template is stateless), the other child starts from
// that savepoint, and once it is ready (STABLE and RUNNING at its current generation) the old
// child is deleted. A new child that is not ready within the abort grace period is deleted and
// the old one keeps running. Changes that need no new deployment patch the active child in
// place. Every step is safe to repeat after a lost status write: the savepoint's trigger id
// derives from the resource's UID and generation, a child already deployed with the spec it
// should have is not deployed again, and a child of the colour not active is a leftover,
// deleted before anything else is done.
package bluegreen
