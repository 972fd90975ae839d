package framework

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kwokNodeAnnotation marks a Node as fake, for kwok and for anyone reading
// the objects.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// defaultPodsPerNode is each fake Node's pod capacity when
// Options.PodsPerNode is zero.
const defaultPodsPerNode = 250

// nodeResources is each fake Node's capacity. It is far beyond what tests
// schedule (a default OGX pod requests 1 CPU and 1Gi) so that scheduling
// never fails for lack of room; kwok runs no containers, so nothing is used.
// podsPerNode zero keeps the historical 64 CPU / 256Gi / 250 pods; any other
// value gives podsPerNode pods and, so that CPU and memory never run out
// before the pod count does, 2 CPU and 8Gi per pod.
func nodeResources(podsPerNode int) corev1.ResourceList {
	if podsPerNode <= 0 {
		return corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("64"),
			corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods:   *resource.NewQuantity(defaultPodsPerNode, resource.DecimalSI),
		}
	}
	pods := int64(podsPerNode)
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(2*pods, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(8*pods<<30, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
}

// NodeName returns the name of the i-th fake Node (from 0).
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// registerNodes creates the fake Nodes and waits until the scheduler may use
// them: kwok has reported them Ready, and the node lifecycle controller has
// lifted the not-ready taint every new Node starts with.
func (cp *ControlPlane) registerNodes(ctx context.Context) error {
	names := make([]string, cp.opts.Nodes)
	for i := range names {
		names[i] = NodeName(i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: names[i],
				Labels: map[string]string{
					corev1.LabelHostname:   names[i],
					corev1.LabelOSStable:   "linux",
					corev1.LabelArchStable: "amd64",
					"type":                 "kwok",
				},
				Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			},
			Status: corev1.NodeStatus{
				Capacity:    nodeResources(cp.opts.PodsPerNode),
				Allocatable: nodeResources(cp.opts.PodsPerNode),
			},
		}
		if _, err := cp.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating fake node %s: %w", names[i], err)
		}
	}

	var watched []*process
	for _, p := range cp.procList() {
		if p.name == Kwok || p.name == ControllerManager || p.name == Scheduler {
			watched = append(watched, p)
		}
	}
	return cp.waitFor(ctx, fmt.Sprintf("%d fake node(s) to become Ready", len(names)), watched, func(ctx context.Context) error {
		for _, name := range names {
			node, err := cp.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("getting node %s: %w", name, err)
			}
			if err := nodeUsable(node); err != nil {
				return err
			}
		}
		return nil
	})
}

// nodeUsable returns nil when node is Ready and carries no not-ready taint,
// and otherwise says what is missing.
func nodeUsable(node *corev1.Node) error {
	ready := false
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = c.Status == corev1.ConditionTrue
		}
	}
	if !ready {
		return fmt.Errorf("node %s is not Ready", node.Name)
	}
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return fmt.Errorf("node %s still has taint %s:%s", node.Name, t.Key, t.Effect)
		}
	}
	return nil
}
