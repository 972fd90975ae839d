package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/test/chart"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// operatorNamespace is the chart's operator namespace in this test: not the
// default ogx-system, so nothing in the chart may assume that name.
const operatorNamespace = "ogx-helm-e2e"

// TestChartInstallsAndRuns installs the chart with non-default values (a
// second operator namespace, two watched namespaces, two replicas, short
// leader-election timings) on the local control plane and shows OGXServers
// in the watched namespaces reach Ready under it.
//
// What is proven, and how. The control plane has kwok fake nodes and no
// container runtime, so the chart's Deployment gets pods that kwok reports
// Running and Ready but that run no process. The test therefore:
//
//   - renders the chart with the Helm SDK (values validated against
//     values.schema.json), installs its crds/ and applies every rendered
//     object in Helm's install order to the real kube-apiserver, which
//     accepts them (RBAC, Service, Deployment, PDB, webhook configuration);
//   - waits until the Deployment is 2/2 available on the fake nodes (the pod
//     template passes the restricted Pod Security admission the chart's
//     Namespace enforces, and is schedulable with the chart's affinity), the
//     PDB sees both pods healthy and the webhook Service has both pods as
//     endpoints (its selector and named ports match);
//   - runs the real ogx-controller binary twice, out of cluster, as the
//     two replicas: each authenticates with a token of the chart's
//     ServiceAccount, so it holds exactly the chart's RBAC (with watch
//     namespaces: RoleBindings in them, a cluster-scoped remainder and a
//     Role for the operator ConfigMap), and each gets
//     the chart Deployment's args and env as stored by the apiserver, with
//     only the pod-local parts replaced: listener addresses become free
//     loopback ports (two processes share this host), the admission cert
//     dir a temporary directory (the chart's emptyDir), the in-cluster
//     config a kubeconfig, and --server-probe=false is added (nothing
//     listens in kwok pods, as in test/e2e);
//   - routes the apiserver's webhook calls for the chart's webhook Service
//     to those processes through an egress CONNECT proxy (connectProxy),
//     standing in for kube-proxy, so admission runs as configured by the
//     chart: the leader writes the self-managed certificate and the
//     caBundle into the chart's webhook configuration, the apiserver
//     verifies the served certificate for the Service's DNS name, and an
//     invalid OGXServer is denied by the webhook.
//
// Not proven here: the container image itself and in-cluster
// configuration (the Dockerfile is reviewed, not built, on these
// machines), and the cert-manager and OpenShift certificate modes, which
// need those projects' controllers (their rendering is tested in
// test/chart).
func TestChartInstallsAndRuns(t *testing.T) {
	ctx := t.Context()
	kube := cp.Client()
	ogx := versioned.NewForConfigOrDie(cp.Config())
	watchA := cp.CreateNamespace(t, "helm-watched-a")
	watchB := cp.CreateNamespace(t, "helm-watched-b")
	unwatched := cp.CreateNamespace(t, "helm-unwatched")

	ch, err := chart.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := chart.Render(ch, map[string]any{
		"operatorNamespace": operatorNamespace,
		"watchNamespaces":   []any{watchA, watchB},
		"replicas":          2,
		"leaderElection":    map[string]any{"enabled": true, "leaseDuration": "4s", "renewDeadline": "3s", "retryPeriod": "1s"},
	}, "default")
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	applyAll(t, objs)

	dep := waitDeploymentAvailable(t, kube, 2)
	waitPDBHealthy(t, kube, dep.Name, 2)
	vwc, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx,
		"ogx-controller-validating-webhook-configuration", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svcRef := vwc.Webhooks[0].ClientConfig.Service
	if svcRef == nil || svcRef.Namespace != operatorNamespace {
		t.Fatalf("webhook clientConfig %+v does not name a Service in %s", vwc.Webhooks[0].ClientConfig, operatorNamespace)
	}
	waitEndpoints(t, kube, svcRef.Name, 2)

	// The two replicas, as the chart's ServiceAccount with the chart's flags.
	bin := framework.BuildController(t, root)
	kubeconfig := serviceAccountKubeconfig(t, kube, dep.Spec.Template.Spec.ServiceAccountName)
	replicas := []*replica{
		startReplica(t, bin, dep, kubeconfig, dep.Name+"-replica-a"),
		startReplica(t, bin, dep, kubeconfig, dep.Name+"-replica-b"),
	}
	// The apiserver dials the webhook Service's ClusterIP and port (through
	// the proxy; nothing is sent to that address), where kube-proxy would
	// forward to the pods' webhook port.
	svc, err := kube.CoreV1().Services(operatorNamespace).Get(ctx, svcRef.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := int32(443)
	if svcRef.Port != nil {
		port = *svcRef.Port
	}
	if !servesPort(svc, port, dep.Spec.Template.Spec.Containers[0], "webhook") {
		t.Fatalf("Service %s does not forward port %d to the container port named webhook: %+v", svc.Name, port, svc.Spec.Ports)
	}
	proxy.route(net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(port))),
		replicas[0].admissionAddr, replicas[1].admissionAddr)

	waitLeader(t, kube, replicas)
	framework.Poll(t, time.Minute, "the caBundle in the chart's webhook configuration", func(ctx context.Context) (bool, error) {
		got, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, vwc.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return len(got.Webhooks[0].ClientConfig.CABundle) > 0, nil
	})
	// Admission through the apiserver: an unknown distribution passes the
	// CRD schema and is denied by the webhook.
	framework.Poll(t, time.Minute, "the webhook to deny an invalid OGXServer", func(ctx context.Context) (bool, error) {
		bad := newServer(watchA, "invalid")
		bad.Spec.Distribution.Name = ptr.To("nope")
		_, err := ogx.OgxV1beta1().OGXServers(watchA).Create(ctx, bad, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return false, fmt.Errorf("an OGXServer with distribution nope was admitted")
		}
		if !strings.Contains(err.Error(), `admission webhook "vogxserver.kb.io" denied the request`) ||
			!strings.Contains(err.Error(), "spec.distribution.name") {
			return false, err
		}
		return true, nil
	})

	// The unwatched server is created first and must stay untouched.
	for _, ns := range []string{unwatched, watchA, watchB} {
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, newServer(ns, "llm"), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating OGXServer in %s: %v", ns, err)
		}
	}
	for _, ns := range []string{watchA, watchB} {
		waitReady(t, ogx, ns, "llm", 2*time.Minute)
	}
	got, err := ogx.OgxV1beta1().OGXServers(unwatched).Get(ctx, "llm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Conditions) > 0 {
		t.Errorf("OGXServer in unwatched namespace %s has status %+v", unwatched, got.Status)
	}
	if _, err := kube.AppsV1().Deployments(unwatched).Get(ctx, "llm", metav1.GetOptions{}); err == nil {
		t.Errorf("a Deployment was created in unwatched namespace %s", unwatched)
	}

	// The leader labels the operator ConfigMap in its own namespace, which
	// with watch namespaces only the chart's operator-config Role allows.
	framework.Poll(t, 30*time.Second, "the operator ConfigMap in "+operatorNamespace, func(ctx context.Context) (bool, error) {
		cm, err := kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, render.OperatorConfigMapName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cm.Labels[ogxv1beta1.WatchLabel] == "true", nil
	})

	// Metrics are served with authentication and authorisation, which use
	// the chart's tokenreviews and subjectaccessreviews rules.
	checkMetricsAuth(t, replicas[0].metricsAddr, cp.Config().BearerToken)

	if refused := proxy.refusedTargets(); len(refused) > 0 {
		t.Errorf("the apiserver dialled targets the chart did not configure: %v", refused)
	}
	for _, r := range replicas {
		if out := r.output(); strings.Contains(strings.ToLower(out), "forbidden") {
			t.Errorf("%s hit forbidden errors with the chart's RBAC:\n%s", r.identity, grepLines(out, "forbidden"))
		}
	}
}

// applyAll server-side applies the rendered objects in their (install)
// order; every one must be accepted.
func applyAll(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	cfg := cp.Config()
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(kubernetes.NewForConfigOrDie(cfg).Discovery()))
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: no API for it: %v", chart.Key(u), err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == apimeta.RESTScopeNameNamespace {
			if u.GetNamespace() == "" {
				t.Fatalf("%s is namespaced but rendered without a namespace", chart.Key(u))
			}
			ri = dyn.Resource(m.Resource).Namespace(u.GetNamespace())
		} else if u.GetNamespace() != "" {
			t.Fatalf("%s is cluster-scoped but rendered with a namespace", chart.Key(u))
		}
		if _, err := ri.Apply(t.Context(), u.GetName(), u, metav1.ApplyOptions{FieldManager: "helm", Force: true}); err != nil {
			t.Fatalf("the apiserver rejected %s: %v", chart.Key(u), err)
		}
	}
	t.Logf("applied %d objects", len(objs))
}

func waitDeploymentAvailable(t *testing.T, kube kubernetes.Interface, n int32) *appsv1.Deployment {
	t.Helper()
	var dep *appsv1.Deployment
	framework.Poll(t, 2*time.Minute, fmt.Sprintf("the chart's Deployment %d/%d available", n, n), func(ctx context.Context) (bool, error) {
		var err error
		dep, err = kube.AppsV1().Deployments(operatorNamespace).Get(ctx, "ogx-k8s-operator-controller-manager", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return dep.Status.AvailableReplicas == n && dep.Status.ObservedGeneration == dep.Generation, nil
	})
	return dep
}

func waitPDBHealthy(t *testing.T, kube kubernetes.Interface, name string, n int32) {
	t.Helper()
	framework.Poll(t, time.Minute, "the chart's PodDisruptionBudget to count the pods", func(ctx context.Context) (bool, error) {
		pdb, err := kube.PolicyV1().PodDisruptionBudgets(operatorNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pdb.Status.CurrentHealthy == n && pdb.Status.DisruptionsAllowed == n-1, nil
	})
}

// servesPort reports whether the Service forwards port to the container
// port of c named target, by number or by name.
func servesPort(svc *corev1.Service, port int32, c corev1.Container, target string) bool {
	for _, cp := range c.Ports {
		if cp.Name != target {
			continue
		}
		for _, p := range svc.Spec.Ports {
			if p.Port == port && (p.TargetPort.StrVal == target || p.TargetPort.IntVal == cp.ContainerPort) {
				return true
			}
		}
	}
	return false
}

// waitEndpoints waits until the Service has n ready endpoints on the
// webhook's container port.
func waitEndpoints(t *testing.T, kube kubernetes.Interface, service string, n int) {
	t.Helper()
	framework.Poll(t, time.Minute, "endpoints of Service "+service, func(ctx context.Context) (bool, error) {
		slices, err := kube.DiscoveryV1().EndpointSlices(operatorNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return false, err
		}
		ready := 0
		for _, s := range slices.Items {
			portOK := false
			for _, p := range s.Ports {
				portOK = portOK || (p.Port != nil && *p.Port == 9443)
			}
			for _, e := range s.Endpoints {
				if portOK && e.Conditions.Ready != nil && *e.Conditions.Ready {
					ready++
				}
			}
		}
		return ready == n, nil
	})
}

// serviceAccountKubeconfig writes a kubeconfig with a token of the chart's
// ServiceAccount, so a process using it has exactly the chart's RBAC.
func serviceAccountKubeconfig(t *testing.T, kube kubernetes.Interface, sa string) string {
	t.Helper()
	tr, err := kube.CoreV1().ServiceAccounts(operatorNamespace).CreateToken(t.Context(), sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for ServiceAccount %s: %v", sa, err)
	}
	admin := cp.Config()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"local": {Server: admin.Host, CertificateAuthorityData: admin.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"sa": {Token: tr.Status.Token}},
		Contexts:       map[string]*clientcmdapi.Context{"sa": {Cluster: "local", AuthInfo: "sa"}},
		CurrentContext: "sa",
	}, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitLeader waits until the Lease in the operator namespace is held by
// one of the replicas.
func waitLeader(t *testing.T, kube kubernetes.Interface, replicas []*replica) {
	t.Helper()
	framework.Poll(t, time.Minute, "a replica to hold the leader Lease in "+operatorNamespace, func(ctx context.Context) (bool, error) {
		leases, err := kube.CoordinationV1().Leases(operatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, l := range leases.Items {
			if l.Spec.HolderIdentity == nil {
				continue
			}
			for _, r := range replicas {
				if strings.HasPrefix(*l.Spec.HolderIdentity, r.identity) {
					t.Logf("Lease %s held by %s", l.Name, *l.Spec.HolderIdentity)
					return true, nil
				}
			}
		}
		return false, nil
	})
}

// replica is one ogx-controller process standing in for a pod of the
// chart's Deployment.
type replica struct {
	identity      string
	admissionAddr string
	metricsAddr   string
	cmd           *exec.Cmd
	mu            sync.Mutex
	log           strings.Builder
	done          chan struct{}
}

func (r *replica) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.Write(p)
}

func (r *replica) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// startReplica runs the binary with the Deployment's container args and
// env, replacing only what belongs to a pod (see the test's doc comment).
func startReplica(t *testing.T, bin string, dep *appsv1.Deployment, kubeconfig, identity string) *replica {
	t.Helper()
	c := dep.Spec.Template.Spec.Containers[0]
	r := &replica{identity: identity, done: make(chan struct{})}
	var args []string
	for _, a := range c.Args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--health-probe-bind-address":
			a = name + "=" + framework.FreeAddr(t)
		case "--metrics-bind-address":
			r.metricsAddr = framework.FreeAddr(t)
			a = name + "=" + r.metricsAddr
		case "--admission-bind-address":
			r.admissionAddr = framework.FreeAddr(t)
			a = name + "=" + r.admissionAddr
		case "--admission-cert-dir":
			a = name + "=" + t.TempDir()
		}
		args = append(args, a)
	}
	if r.admissionAddr == "" || r.metricsAddr == "" {
		t.Fatalf("the chart's args %v do not turn on admission and metrics", c.Args)
	}
	args = append(args, "--kubeconfig="+kubeconfig, "--server-probe=false", "-v=2")
	env := append(os.Environ(), "HOSTNAME="+identity)
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			env = append(env, e.Name+"="+dep.Namespace)
		case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
			limit := c.Resources.Limits[corev1.ResourceMemory]
			env = append(env, e.Name+"="+strconv.FormatInt(limit.Value(), 10))
		default:
			t.Fatalf("env %s of the chart's container: this test does not know how to provide it", e.Name)
		}
	}
	r.cmd = exec.Command(bin, args...)
	r.cmd.Env = env
	r.cmd.Stdout, r.cmd.Stderr = r, r
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("starting ogx-controller: %v", err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(15 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", identity, r.output())
		}
	})
	t.Logf("%s: %s %s", identity, bin, strings.Join(args, " "))
	return r
}

// checkMetricsAuth: a request without a token is refused with 401, one
// with a token allowed to get /metrics (the admin's) is served.
func checkMetricsAuth(t *testing.T, addr, token string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the listener's self-signed certificate
	get := func(ctx context.Context, tok string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			return 0, err
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	framework.Poll(t, 30*time.Second, "metrics served to an authorised token", func(ctx context.Context) (bool, error) {
		code, err := get(ctx, token)
		return code == http.StatusOK, err
	})
	if code, err := get(t.Context(), ""); err != nil || code != http.StatusUnauthorized {
		t.Errorf("metrics without a token: %d %v, want 401", code, err)
	}
}

// waitReady waits for Ready=True observed at the current generation.
func waitReady(t *testing.T, ogx versioned.Interface, ns, name string, timeout time.Duration) {
	t.Helper()
	framework.Poll(t, timeout, fmt.Sprintf("OGXServer %s/%s Ready", ns, name), func(ctx context.Context) (bool, error) {
		s, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := apimeta.FindStatusCondition(s.Status.Conditions, "Ready")
		return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == s.Generation, nil
	})
}

func newServer(ns, name string) *ogxv1beta1.OGXServer {
	return &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To("starter")}},
	}
}

// grepLines returns the lines of s containing sub (case-insensitive).
func grepLines(s, sub string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(strings.ToLower(l), sub) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
