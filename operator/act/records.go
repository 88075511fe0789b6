package act

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	flinkv1beta1 "github.com/flinkop/flinkop/operator/api/v1beta1"
	"github.com/flinkop/flinkop/operator/decide"
	"github.com/flinkop/flinkop/operator/snapshot"
)

// maxRecordJobName bounds the job's part of a record's name, which is at most 253 characters.
const maxRecordJobName = 200

// RecordName is the name of the FlinkStateSnapshot that records savepoint sp of the job named
// job: <job>-savepoint-<trigger type>-<digest of the savepoint's path>. It is derived from the
// savepoint alone, so writing a record again (after a lost status write) names the same one.
func RecordName(job string, sp flinkv1beta1.Savepoint) string {
	sum := sha256.Sum256([]byte(sp.Location))
	trigger := strings.ToLower(string(sp.TriggerType))
	if trigger == "" {
		trigger = "unknown"
	}
	if len(job) > maxRecordJobName {
		job = strings.TrimRight(job[:maxRecordJobName], "-.")
	}
	return fmt.Sprintf("%s-savepoint-%s-%s", job, trigger, hex.EncodeToString(sum[:5]))
}

// WriteRecords creates the FlinkStateSnapshots that record r.Create and deletes those of
// r.Delete, for owner (a FlinkDeployment or FlinkSessionJob, of kind). A record is a
// completed savepoint (alreadyExists) that owner controls, so it goes with owner; it never
// disposes of its savepoint (disposeOnDelete false): the job's history cleanup decides that.
// A record that exists is left as it is; a name taken by an object owner does not control is
// neither changed nor deleted.
func WriteRecords(ctx context.Context, c client.Client, owner client.Object, kind flinkv1beta1.JobKind, r decide.Records) error {
	for _, sp := range r.Create {
		rec := record(owner, kind, sp)
		if err := c.Create(ctx, rec); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("record savepoint %s as FlinkStateSnapshot %s: %w", sp.Location, rec.Name, err)
		}
	}
	for _, sp := range r.Delete {
		if err := deleteRecord(ctx, c, owner, RecordName(owner.GetName(), sp)); err != nil {
			return err
		}
	}
	return nil
}

// record renders the FlinkStateSnapshot that records sp.
func record(owner client.Object, kind flinkv1beta1.JobKind, sp flinkv1beta1.Savepoint) *flinkv1beta1.FlinkStateSnapshot {
	trigger := sp.TriggerType
	if trigger == "" {
		trigger = flinkv1beta1.SnapshotTriggerUnknown
	}
	format := sp.FormatType
	if format == "" {
		format = "CANONICAL"
	}
	return &flinkv1beta1.FlinkStateSnapshot{
		ObjectMeta: metav1.ObjectMeta{
			Name: RecordName(owner.GetName(), sp), Namespace: owner.GetNamespace(),
			Labels: map[string]string{snapshot.LabelTriggerType: string(trigger)},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: flinkv1beta1.GroupVersion.String(), Kind: string(kind),
				Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true),
			}},
		},
		Spec: flinkv1beta1.FlinkStateSnapshotSpec{
			JobReference: &flinkv1beta1.JobReference{Kind: kind, Name: owner.GetName()},
			Savepoint: &flinkv1beta1.SavepointSpec{
				Path: sp.Location, FormatType: format, DisposeOnDelete: ptr.To(false), AlreadyExists: true,
			},
		},
	}
}

// deleteRecord deletes the record named name if owner controls it.
func deleteRecord(ctx context.Context, c client.Client, owner client.Object, name string) error {
	var rec flinkv1beta1.FlinkStateSnapshot
	err := c.Get(ctx, client.ObjectKey{Namespace: owner.GetNamespace(), Name: name}, &rec)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get FlinkStateSnapshot %s: %w", name, err)
	}
	if !metav1.IsControlledBy(&rec, owner) || rec.DeletionTimestamp != nil {
		return nil
	}
	err = c.Delete(ctx, &rec, client.Preconditions{UID: &rec.UID})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete FlinkStateSnapshot %s: %w", name, err)
	}
	return nil
}
