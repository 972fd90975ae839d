package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

const (
	rawNamespace = "raw"
	rawWorkers   = 8
	// rawManagedBy labels the raw phase's objects; it is not ogx-operator's
	// value, so nothing mistakes them for a server's children.
	rawManagedBy = "ogx-bench-raw"
)

// rawResult is the baseline: what the API server, controller manager,
// scheduler and kwok take for the same objects with no operator involved.
type rawResult struct {
	created   time.Duration // first create until all 4n create calls returned
	available time.Duration // first create until all n Deployments available
}

// runRaw creates n × (ServiceAccount, NetworkPolicy, Service, Deployment)
// shaped like a starter server's children straight through the API, with
// rawWorkers workers, times it, and deletes the namespace again. cpu
// measures from the first create until all Deployments are available.
func runRaw(ctx context.Context, client kubernetes.Interface, n int, deadline time.Time, cpu *cpuWindow) (rawResult, error) {
	var res rawResult
	if err := createNamespace(ctx, client, rawNamespace); err != nil {
		return res, err
	}
	tr := newTracker()
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(rawNamespace))
	_, err := factory.Apps().V1().Deployments().Informer().AddEventHandler(tr.handler("Deployment", nameKey))
	if err != nil {
		return res, err
	}
	stop := make(chan struct{})
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), factory.Apps().V1().Deployments().Informer().HasSynced) {
		return res, errors.New("raw: Deployment informer did not sync")
	}

	cpu.start()
	t0 := time.Now()
	err = parallel(ctx, n, rawWorkers, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("r%04d", i)
		for _, create := range []func() error{
			func() error {
				_, err := client.CoreV1().ServiceAccounts(rawNamespace).Create(ctx, rawServiceAccount(name), metav1.CreateOptions{})
				return err
			},
			func() error {
				_, err := client.NetworkingV1().NetworkPolicies(rawNamespace).Create(ctx, rawNetworkPolicy(name), metav1.CreateOptions{})
				return err
			},
			func() error {
				_, err := client.CoreV1().Services(rawNamespace).Create(ctx, rawService(name), metav1.CreateOptions{})
				return err
			},
			func() error {
				_, err := client.AppsV1().Deployments(rawNamespace).Create(ctx, rawDeployment(name), metav1.CreateOptions{})
				return err
			},
		} {
			if err := create(); err != nil {
				return fmt.Errorf("raw: creating objects of %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	res.created = time.Since(t0)
	logf("raw: %d objects created in %.1fs", 4*n, res.created.Seconds())

	err = waitUntil(ctx, deadline, fmt.Sprintf("%d raw Deployments to become available", n),
		func() bool { return tr.availableCount() >= n },
		func() string { return fmt.Sprintf("%d/%d available", tr.availableCount(), n) }, nil)
	if err != nil {
		return res, err
	}
	cpu.stop()
	res.available = tr.lastAvailable().Sub(t0)
	logf("raw: %d Deployments available %.1fs after the first create", n, res.available.Seconds())

	begin := time.Now()
	if err := deleteNamespace(ctx, client, rawNamespace, deadline); err != nil {
		return res, err
	}
	logf("raw: namespace %s deleted in %.1fs", rawNamespace, time.Since(begin).Seconds())
	return res, nil
}

// nameKey keys objects by name.
func nameKey(obj any) string {
	if o, ok := obj.(metav1.Object); ok {
		return o.GetName()
	}
	return ""
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first
// error, after which the remaining items are skipped.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := make(chan int)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range workers {
		wg.Go(func() {
			for i := range items {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case items <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(items)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return firstErr
}

func createNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// deleteNamespace deletes a namespace and waits until it is gone, which in
// Full mode means the controller manager has removed its contents.
func deleteNamespace(ctx context.Context, client kubernetes.Interface, name string, deadline time.Time) error {
	err := client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace %s: %w", name, err)
	}
	var last error
	return waitUntil(ctx, deadline, "namespace "+name+" to be deleted", func() bool {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, last = client.CoreV1().Namespaces().Get(c, name, metav1.GetOptions{})
		if last == nil {
			time.Sleep(400 * time.Millisecond) // poll the API every ~half second
		}
		return apierrors.IsNotFound(last)
	}, func() string { return fmt.Sprintf("last get: %v", last) }, nil)
}

func rawLabels() map[string]string {
	return map[string]string{"app.kubernetes.io/managed-by": rawManagedBy, "app.kubernetes.io/part-of": "ogx"}
}

func rawSelector(name string) map[string]string {
	return map[string]string{"app": "ogx", "app.kubernetes.io/instance": name}
}

func rawServiceAccount(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name + "-sa", Labels: rawLabels()}}
}

func rawService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-service", Labels: rawLabels()},
		Spec: corev1.ServiceSpec{
			Selector: rawSelector(name),
			Ports:    []corev1.ServicePort{{Name: "http", Port: 8321, TargetPort: intstr.FromInt32(8321), Protocol: corev1.ProtocolTCP}},
		},
	}
}

func rawNetworkPolicy(name string) *networkingv1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	port := intstr.FromInt32(8321)
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-network-policy", Labels: rawLabels()},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: rawSelector(name)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}},
			}},
		},
	}
}

// rawDeployment is shaped like a starter server's Deployment: one replica,
// one container requesting 1 CPU and 1Gi, an HTTP readiness probe (kwok
// marks the pod ready regardless) and an emptyDir.
func rawDeployment(name string) *appsv1.Deployment {
	probe := &corev1.Probe{
		ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/v1/health", Port: intstr.FromInt32(8321)}},
		PeriodSeconds:  10,
		TimeoutSeconds: 5,
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: rawLabels()},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: rawSelector(name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: rawSelector(name)},
				Spec: corev1.PodSpec{
					ServiceAccountName: name + "-sa",
					Containers: []corev1.Container{{
						Name:  "ogx",
						Image: "docker.io/ogxai/distribution-starter:latest",
						Env:   []corev1.EnvVar{{Name: "OGX_PORT", Value: "8321"}, {Name: "HF_HOME", Value: "/.ogx"}},
						Ports: []corev1.ContainerPort{{ContainerPort: 8321, Protocol: corev1.ProtocolTCP}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("1"),
							corev1.ResourceMemory: resource.MustParse("1Gi"),
						}},
						ReadinessProbe: probe,
						VolumeMounts:   []corev1.VolumeMount{{Name: "ogx-storage", MountPath: "/.ogx"}},
					}},
					Volumes: []corev1.Volume{{Name: "ogx-storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}
