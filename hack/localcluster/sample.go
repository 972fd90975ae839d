package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/manifest"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// fieldManager owns what localcluster applies.
const fieldManager = "ogx-localcluster"

var ogxServers = schema.GroupVersionResource{Group: "ogx.io", Version: "v1beta1", Resource: "ogxservers"}

// sampleObject is one OGXServer read from the sample file.
type sampleObject struct {
	namespace, name string
	obj             *unstructured.Unstructured
}

// readSamples decodes every YAML document in path, which must each be an
// ogx.io/v1beta1 OGXServer; those without a namespace go to namespace.
func readSamples(path, namespace string) ([]sampleObject, error) {
	docs, err := manifest.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading sample: %w", err)
	}
	var out []sampleObject
	for i, u := range docs {
		if u.GetAPIVersion() != ogxServers.GroupVersion().String() || u.GetKind() != "OGXServer" {
			return nil, fmt.Errorf("YAML document %d of %s is a %s %s; only ogx.io/v1beta1 OGXServer is applied here",
				i, path, u.GetAPIVersion(), u.GetKind())
		}
		if u.GetName() == "" {
			return nil, fmt.Errorf("YAML document %d of %s: OGXServer without metadata.name", i, path)
		}
		if u.GetNamespace() == "" {
			u.SetNamespace(namespace)
		}
		out = append(out, sampleObject{namespace: u.GetNamespace(), name: u.GetName(), obj: u})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no OGXServer in %s", path)
	}
	return out, nil
}

// applySample server-side applies one sample, so running against objects
// left from an earlier run (with -keep and a reused etcd) also works.
func applySample(ctx context.Context, dyn dynamic.Interface, s sampleObject) error {
	_, err := dyn.Resource(ogxServers).Namespace(s.namespace).Apply(ctx, s.name, s.obj,
		metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying OGXServer %s/%s: %w", s.namespace, s.name, err)
	}
	return nil
}

// pollInterval is how often waitReady reads the samples' status.
const pollInterval = 500 * time.Millisecond

// waitReady polls until every sample has condition Ready=True for its
// current generation, as `kubectl wait --for=condition=Ready` would see it.
// It gives up at the deadline, when ctx ends, or when the controller exits,
// and then describes the status it last saw.
func waitReady(ctx context.Context, ogx versioned.Interface, ctrl *framework.ControllerProcess, objects []sampleObject, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	last := make([]string, len(objects))
	for {
		allReady := true
		for i, s := range objects {
			got, err := ogx.OgxV1beta1().OGXServers(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
			if err != nil {
				last[i] = err.Error()
				allReady = false
				continue
			}
			ready, desc := readiness(got)
			last[i] = desc
			allReady = allReady && ready
		}
		if allReady {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ctrl.Done():
			return fmt.Errorf("ogx-controller exited (%v) before the samples were Ready", ctrl.Err())
		case <-deadline.C:
			var b strings.Builder
			fmt.Fprintf(&b, "samples not Ready after %s:", timeout)
			for i, s := range objects {
				fmt.Fprintf(&b, "\n\tOGXServer %s/%s: %s", s.namespace, s.name, last[i])
			}
			return errors.New(b.String())
		case <-tick.C:
		}
	}
}

// readiness reports whether s is Ready for its generation, and a one-line
// description of its status for timeouts.
func readiness(s *ogxv1beta1.OGXServer) (bool, string) {
	c := apimeta.FindStatusCondition(s.Status.Conditions, "Ready")
	if c == nil {
		return false, fmt.Sprintf("phase %q, no Ready condition yet", s.Status.Phase)
	}
	ready := c.Status == metav1.ConditionTrue && c.ObservedGeneration == s.Generation &&
		s.Status.ObservedGeneration == s.Generation
	return ready, fmt.Sprintf("phase %q, Ready=%s (%s: %s), generation %d, observed %d",
		s.Status.Phase, c.Status, c.Reason, c.Message, s.Generation, s.Status.ObservedGeneration)
}
