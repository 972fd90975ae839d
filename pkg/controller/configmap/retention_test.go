package configmap

// Unit tests of config retention (retention.go) on the fake clientsets
// (controllertest.Env): which generated ConfigMaps collectGenerated deletes,
// in which order, with which precondition, and the one Event it sends.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// retentionEpoch is the creation time of the oldest test ConfigMap.
var retentionEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// generatedCM is a generated config ConfigMap of instance, created age
// minutes after retentionEpoch and controlled by owner ("" for none).
func generatedCM(name, instance string, owner types.UID, age int) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: controllertest.Namespace, UID: types.UID("uid-" + name),
		CreationTimestamp: metav1.NewTime(retentionEpoch.Add(time.Duration(age) * time.Minute)),
		Labels: map[string]string{render.LabelGeneratedConfig: "true", render.LabelInstance: instance,
			ogxv1beta1.WatchLabel: "true", render.LabelManagedBy: render.ManagedByValue},
	}}
	if owner != "" {
		cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: ogxv1beta1.SchemeGroupVersion.String(), Kind: "OGXServer",
			Name: instance, UID: owner, Controller: ptr.To(true)}}
	}
	return cm
}

// userConfigTemplate is a pod template mounting cm as user-config, plus an
// unrelated ConfigMap volume that must not protect anything.
func userConfigTemplate(cm string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: render.VolumeUserConfig, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}},
		{Name: "other", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "g0"}}}},
	}}}
}

// mountingDeployment is the server's Deployment mounting cm.
func mountingDeployment(cm string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: controllertest.Name, Namespace: controllertest.Namespace,
			Labels: map[string]string{render.LabelManagedBy: render.ManagedByValue}},
		Spec: appsv1.DeploymentSpec{Template: userConfigTemplate(cm)},
	}
}

// mountingReplicaSet is a ReplicaSet of instance mounting cm.
func mountingReplicaSet(name, instance, cm string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: controllertest.Namespace,
			Labels: map[string]string{render.LabelApp: render.AppValue, render.LabelInstance: instance}},
		Spec: appsv1.ReplicaSetSpec{Template: userConfigTemplate(cm)},
	}
}

func TestCollectGenerated(t *testing.T) {
	own := func(name string, age int) runtime.Object {
		return generatedCM(name, controllertest.Name, controllertest.UID, age)
	}
	cases := []struct {
		name    string
		objs    []runtime.Object
		current string
		// status is the ConfigMap status.configGeneration names.
		status string
		// listErr makes listing ReplicaSets fail.
		listErr bool
		// lists is how many live LISTs of ReplicaSets the collection makes:
		// one, unless the cached facts leave nothing to delete.
		lists int
		// deleted is the ConfigMaps deleted, in order.
		deleted []string
	}{
		{
			name:    "two or fewer are all kept, and nothing is listed",
			objs:    []runtime.Object{own("g1", 1), own("g2", 2)},
			current: "g2",
		},
		{
			name:    "the cache protects every candidate: no LIST",
			objs:    []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), mountingDeployment("g2")},
			current: "g3",
			status:  "g1",
		},
		{
			name: "the cache leaves one to delete: the ReplicaSets are listed and protect it",
			objs: []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), own("g4", 4), mountingDeployment("g3"),
				mountingReplicaSet("rs-old", controllertest.Name, "g1")},
			current: "g4",
			status:  "g2",
			lists:   1,
		},
		{
			name:    "the oldest go first, two kept",
			objs:    []runtime.Object{own("g3", 3), own("g1", 1), own("g4", 4), own("g2", 2)},
			current: "g4",
			deleted: []string{"g1", "g2"},
			lists:   1,
		},
		{
			name:    "the current one is kept even when oldest",
			objs:    []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), own("g4", 4)},
			current: "g1",
			deleted: []string{"g2", "g3"},
			lists:   1,
		},
		{
			name:    "the one status names is kept",
			objs:    []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), own("g4", 4)},
			current: "g4",
			status:  "g1",
			deleted: []string{"g2", "g3"},
			lists:   1,
		},
		{
			name: "mounted by the Deployment or a ReplicaSet are kept, beyond two",
			objs: []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), own("g4", 4), own("g5", 5), own("g6", 6),
				mountingDeployment("g2"), mountingReplicaSet("rs-old", controllertest.Name, "g1")},
			current: "g6",
			deleted: []string{"g3", "g4", "g5"},
			lists:   1,
		},
		{
			name: "a ReplicaSet of another instance protects nothing",
			objs: []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3),
				mountingReplicaSet("rs-other", "other", "g1")},
			current: "g3",
			deleted: []string{"g1"},
			lists:   1,
		},
		{
			name:    "equal creation times are ordered by name",
			objs:    []runtime.Object{own("gb", 1), own("ga", 1), own("gc", 1), own("gd", 2)},
			current: "gd",
			deleted: []string{"ga", "gb"},
			lists:   1,
		},
		{
			name: "others' ConfigMaps are never collected nor counted",
			objs: []runtime.Object{
				generatedCM("old-incarnation", controllertest.Name, "uid-previous", 0),
				generatedCM("orphan", controllertest.Name, "", 0),
				generatedCM("other-1", "other", "uid-other", 0),
				generatedCM("other-2", "other", "uid-other", 0),
				generatedCM("other-3", "other", "uid-other", 0),
				own("g1", 1), own("g2", 2), own("g3", 3)},
			current: "g3",
			deleted: []string{"g1"},
			lists:   1,
		},
		{
			name:    "without the ReplicaSets nothing is deleted",
			objs:    []runtime.Object{own("g1", 1), own("g2", 2), own("g3", 3), own("g4", 4)},
			current: "g4",
			listErr: true,
			lists:   1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := controllertest.Server(controllertest.Namespace, controllertest.Name, controllertest.UID)
			if c.status != "" {
				s.Status.ConfigGeneration = &ogxv1beta1.ConfigGenerationStatus{ConfigMapName: c.status}
			}
			e := controllertest.Started(t, base.Options{}, c.objs, s)
			if c.listErr {
				e.Kube.PrependReactor("list", "replicasets", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("injected list failure")
				})
			}
			e.Deps.Events.Lead()

			collectGenerated(e.Ctx, e.Deps, s, c.current)
			actions := e.Kube.Actions()

			var deleted []string
			for _, a := range e.KubeWrites() {
				d, ok := a.(clienttesting.DeleteActionImpl)
				if !ok || d.GetResource().Resource != "configmaps" {
					t.Errorf("unexpected write %s", controllertest.ActionString(a))
					continue
				}
				deleted = append(deleted, d.GetName())
				want := types.UID("uid-" + d.GetName())
				if p := d.DeleteOptions.Preconditions; p == nil || p.UID == nil || *p.UID != want {
					t.Errorf("delete of %s: preconditions %+v, want UID %s", d.GetName(), p, want)
				}
			}
			if d := cmp.Diff(c.deleted, deleted); d != "" {
				t.Errorf("deleted ConfigMaps (-want +got):\n%s", d)
			}
			lists := 0
			for _, a := range actions {
				if a.GetVerb() == "list" && a.GetResource().Resource == "replicasets" {
					lists++
				}
			}
			if lists != c.lists {
				t.Errorf("%d live LISTs of ReplicaSets, want %d", lists, c.lists)
			}
			var wantEvents []string
			if len(c.deleted) > 0 {
				wantEvents = []string{fmt.Sprintf("Normal ConfigGarbageCollected: Deleted superseded generated ConfigMaps: %s",
					strings.Join(c.deleted, ", "))}
			}
			if d := cmp.Diff(wantEvents, controllertest.DrainEvents(e.Deps.Events)); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}
