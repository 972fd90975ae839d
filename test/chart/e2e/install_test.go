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

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/action"
	helmkube "helm.sh/helm/v4/pkg/kube"
	common "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/test/chart"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// operatorNamespace is the release namespace, where the chart puts the
// operator: not the default ogx-system, so nothing in the chart may assume
// that name. releaseName is not the kustomize install's instance
// (ogx-controller), so every selector must follow the release name.
const (
	operatorNamespace = "ogx-helm-e2e"
	releaseName       = "ogx-e2e"
)

// TestChartLifecycle takes the chart through a release's whole life with
// Helm's own actions (helm.sh/helm/v4/pkg/action) and real release records
// (Secrets) on the local control plane: install into a new namespace
// (CreateNamespace) with non-default values (two watched namespaces, two
// replicas, short leader-election timings), OGXServers reaching Ready
// under it, `helm test`, an upgrade with changed values, a rollback to
// revision 1, and an uninstall that keeps the CRD, the OGXServers and their
// children.
//
// What is proven, and how. The control plane has kwok fake nodes and no
// container runtime, so the chart's Deployment gets pods that kwok reports
// Running and Ready but that run no process. The test therefore:
//
//   - installs with Helm (values validated against values.schema.json, the
//     CRD of crds/ installed first, the objects applied server-side in
//     Helm's order and waited for with Helm's status watcher): the
//     apiserver accepts every object, the Deployment becomes 2/2 available
//     on the fake nodes, the PDB sees both pods healthy and the webhook
//     Service has both pods as endpoints (its selector and named ports
//     match);
//   - labels the namespace pod-security.kubernetes.io/enforce=restricted,
//     as docs/install-helm.md says to, so that every pod created later (the
//     upgrade's, the helm test Pod) passes the restricted Pod Security
//     admission of the real apiserver;
//   - runs the real ogx-controller binary twice, out of cluster, as the
//     two replicas: each authenticates with a token of the chart's
//     ServiceAccount, so it holds exactly the chart's RBAC (with watch
//     namespaces: RoleBindings in them, a cluster-scoped remainder and a
//     Role for the operator ConfigMap), and each gets the chart
//     Deployment's args and env as stored by the apiserver, with only the
//     pod-local parts replaced: listener addresses become free loopback
//     ports (two processes share this host), the admission cert dir a
//     temporary directory (the chart's emptyDir), the in-cluster config a
//     kubeconfig, and --server-probe=false is added (nothing listens in
//     kwok pods, as in test/e2e);
//   - routes the apiserver's webhook calls for the chart's webhook Service
//     to those processes through an egress CONNECT proxy (connectProxy),
//     standing in for kube-proxy, so admission runs as configured by the
//     chart: the leader writes the self-managed certificate and the
//     caBundle into the chart's webhook configuration, the apiserver
//     verifies the served certificate for the Service's DNS name, and an
//     invalid OGXServer is denied by the webhook;
//   - runs `helm test` with Helm's action: Helm creates the hook's
//     ServiceAccount, Role, RoleBinding and Pod and waits for the Pod to
//     succeed; standing in for the kubelet (runTestPod), the test runs the
//     Pod's command, `ogx-controller check-admission` with the Pod's args,
//     as the hook's ServiceAccount, and writes its exit code into the Pod's
//     status. Helm then deletes the hooks (hook-succeeded).
//
// Not proven here: the container image itself and in-cluster
// configuration (the Dockerfile is reviewed, not built, on these
// machines), that the kubelet starts the hook's container, and the
// cert-manager and OpenShift certificate modes, which need those
// projects' controllers (their rendering is tested in test/chart).
func TestChartLifecycle(t *testing.T) {
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
	values := func(replicas int, extraEnv ...any) map[string]any {
		return map[string]any{
			"watchNamespaces": []any{watchA, watchB},
			"replicas":        replicas,
			"leaderElection":  map[string]any{"enabled": true, "leaseDuration": "4s", "renewDeadline": "3s", "retryPeriod": "1s"},
			"extraEnv":        extraEnv,
		}
	}
	cfg := helmConfig(t, operatorNamespace)

	// helm install ogx-e2e charts/ogx-controller -n ogx-helm-e2e --create-namespace --wait
	install := action.NewInstall(cfg)
	install.ReleaseName = releaseName
	install.Namespace = operatorNamespace
	install.CreateNamespace = true
	install.WaitStrategy = helmkube.StatusWatcherStrategy
	install.Timeout = 2 * time.Minute
	r, err := install.RunWithContext(ctx, ch, values(2))
	if err != nil {
		t.Fatalf("helm install: %v", err)
	}
	if rel := asRelease(t, r); rel.Version != 1 || rel.Info.Status != common.StatusDeployed {
		t.Fatalf("installed release revision %d status %s", rel.Version, rel.Info.Status)
	}
	checkRecords(t, kube, map[string]string{"1": "deployed"})
	labelRestricted(t, kube, operatorNamespace)

	dep := waitDeploymentAvailable(t, kube, 2)
	if got := dep.Spec.Selector.MatchLabels; got["app.kubernetes.io/instance"] != releaseName || len(got) != 2 {
		t.Errorf("Deployment selector %v: want app.kubernetes.io/name and instance=%s only", got, releaseName)
	}
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
	// A server with storage, for its PVC (kept by an uninstall); it need
	// not become Ready (no provisioner binds the claim).
	data := newServer(watchB, "data")
	data.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: ptr.To(resource.MustParse("1Gi"))}}
	if _, err := ogx.OgxV1beta1().OGXServers(watchB).Create(ctx, data, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, time.Minute, "the PVC of OGXServer data", func(ctx context.Context) (bool, error) {
		pvcs, err := kube.CoreV1().PersistentVolumeClaims(watchB).List(ctx, metav1.ListOptions{})
		return err == nil && len(pvcs.Items) == 1, err
	})

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

	// helm test: the hook Pod's check, as the hook's own ServiceAccount.
	tested, out, err := runHelmTest(t, cfg, operatorNamespace, releaseName, bin)
	t.Logf("helm test output: %s", out)
	if err != nil {
		t.Fatalf("helm test: %v", err)
	}
	if !strings.Contains(out, "PASS") {
		t.Errorf("the test Pod's check printed %q", out)
	}
	for _, h := range tested.Hooks {
		if h.LastRun.Phase != release.HookPhaseSucceeded {
			t.Errorf("hook %s %s: last run %s", h.Kind, h.Name, h.LastRun.Phase)
		}
	}
	hookName := releaseName + "-test-admission"
	waitGone(t, "the helm test Pod", func(ctx context.Context) error {
		_, err := kube.CoreV1().Pods(operatorNamespace).Get(ctx, hookName, metav1.GetOptions{})
		return err
	})
	waitGone(t, "the helm test Role", func(ctx context.Context) error {
		_, err := kube.RbacV1().Roles(operatorNamespace).Get(ctx, hookName, metav1.GetOptions{})
		return err
	})

	// The servers' Deployments, which an upgrade and a rollback of the
	// operator must leave alone.
	children := map[string]*appsv1.Deployment{}
	for _, ns := range []string{watchA, watchB} {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		children[ns] = d
	}
	checkServersUntouched := func(when string) {
		t.Helper()
		for ns, before := range children {
			waitReady(t, ogx, ns, "llm", time.Minute)
			d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if d.UID != before.UID || d.Generation != before.Generation {
				t.Errorf("%s: the Deployment of OGXServer %s/llm changed: uid %s generation %d, was %s %d",
					when, ns, d.UID, d.Generation, before.UID, before.Generation)
			}
		}
	}

	// helm upgrade with three replicas and an extra variable.
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace = operatorNamespace
	upgrade.WaitStrategy = helmkube.StatusWatcherStrategy
	upgrade.Timeout = 2 * time.Minute
	extra := map[string]any{"name": "HTTPS_PROXY", "value": "http://proxy.example:3128"}
	r, err = upgrade.RunWithContext(ctx, releaseName, ch, values(3, extra))
	if err != nil {
		t.Fatalf("helm upgrade: %v", err)
	}
	if rel := asRelease(t, r); rel.Version != 2 || rel.Info.Status != common.StatusDeployed {
		t.Fatalf("upgraded release revision %d status %s", rel.Version, rel.Info.Status)
	}
	checkRecords(t, kube, map[string]string{"1": "superseded", "2": "deployed"})
	upgraded := waitDeploymentAvailable(t, kube, 3)
	if upgraded.UID != dep.UID {
		t.Errorf("the upgrade replaced the operator's Deployment (uid %s, was %s)", upgraded.UID, dep.UID)
	}
	if !hasEnv(upgraded, "HTTPS_PROXY", "http://proxy.example:3128") {
		t.Errorf("the upgraded Deployment lacks HTTPS_PROXY: %v", upgraded.Spec.Template.Spec.Containers[0].Env)
	}
	checkServersUntouched("after the upgrade")

	// helm rollback ogx-e2e 1
	rollback := action.NewRollback(cfg)
	rollback.Version = 1
	rollback.WaitStrategy = helmkube.StatusWatcherStrategy
	rollback.Timeout = 2 * time.Minute
	if err := rollback.Run(releaseName); err != nil {
		t.Fatalf("helm rollback: %v", err)
	}
	checkRecords(t, kube, map[string]string{"1": "superseded", "2": "superseded", "3": "deployed"})
	rolledBack := waitDeploymentAvailable(t, kube, 2)
	if hasEnv(rolledBack, "HTTPS_PROXY", "http://proxy.example:3128") || rolledBack.UID != dep.UID {
		t.Errorf("the rolled-back Deployment (uid %s) is not revision 1's: env %v", rolledBack.UID, rolledBack.Spec.Template.Spec.Containers[0].Env)
	}
	checkServersUntouched("after the rollback")

	if refused := proxy.refusedTargets(); len(refused) > 0 {
		t.Errorf("the apiserver dialled targets the chart did not configure: %v", refused)
	}
	// The operator stops with its Deployment; its processes here stop
	// first, so that their logs cover only the chart's RBAC.
	for _, r := range replicas {
		r.stop()
		if out := r.output(); strings.Contains(strings.ToLower(out), "forbidden") {
			t.Errorf("%s hit forbidden errors with the chart's RBAC:\n%s", r.identity, grepLines(out, "forbidden"))
		}
	}

	// helm uninstall: the chart's objects and release records go; the CRD
	// (crds/ is never deleted by Helm), the OGXServers and their children
	// stay (docs/install-helm.md, Uninstalling).
	uninstall := action.NewUninstall(cfg)
	uninstall.WaitStrategy = helmkube.StatusWatcherStrategy
	uninstall.Timeout = 2 * time.Minute
	if _, err := uninstall.Run(releaseName); err != nil {
		t.Fatalf("helm uninstall: %v", err)
	}
	checkRecords(t, kube, map[string]string{})
	waitGone(t, "the operator's Deployment", func(ctx context.Context) error {
		_, err := kube.AppsV1().Deployments(operatorNamespace).Get(ctx, dep.Name, metav1.GetOptions{})
		return err
	})
	for _, get := range []struct {
		what string
		get  func(ctx context.Context) error
	}{
		{"ClusterRole ogx-controller", func(ctx context.Context) error {
			_, err := kube.RbacV1().ClusterRoles().Get(ctx, "ogx-controller", metav1.GetOptions{})
			return err
		}},
		{"the webhook configuration", func(ctx context.Context) error {
			_, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, vwc.Name, metav1.GetOptions{})
			return err
		}},
	} {
		waitGone(t, get.what, get.get)
	}
	crds := apiextensionsclient.NewForConfigOrDie(cp.Config())
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "ogxservers.ogx.io", metav1.GetOptions{}); err != nil {
		t.Errorf("the CRD after helm uninstall: %v", err)
	}
	for _, ns := range []string{watchA, watchB} {
		if _, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "llm", metav1.GetOptions{}); err != nil {
			t.Errorf("OGXServer %s/llm after helm uninstall: %v", ns, err)
		}
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "llm", metav1.GetOptions{})
		if err != nil || d.UID != children[ns].UID {
			t.Errorf("the Deployment of OGXServer %s/llm after helm uninstall: %v", ns, err)
		}
	}
	pvcs, err := kube.CoreV1().PersistentVolumeClaims(watchB).List(ctx, metav1.ListOptions{})
	if err != nil || len(pvcs.Items) != 1 || pvcs.Items[0].DeletionTimestamp != nil {
		t.Errorf("the PVC of OGXServer %s/data after helm uninstall: %v %v", watchB, pvcs, err)
	}
}

// checkRecords compares the release's records (revision: status) with
// want.
func checkRecords(t *testing.T, kube kubernetes.Interface, want map[string]string) {
	t.Helper()
	got, err := releaseRecords(t.Context(), kube, operatorNamespace, releaseName)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("release records in Secrets (-want +got):\n%s", d)
	}
}

// labelRestricted labels namespace to enforce the restricted Pod Security
// Standard, as docs/install-helm.md tells users to.
func labelRestricted(t *testing.T, kube kubernetes.Interface, namespace string) {
	t.Helper()
	patch := []byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`)
	if _, err := kube.CoreV1().Namespaces().Patch(t.Context(), namespace, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// hasEnv reports whether the Deployment's container sets name to value.
func hasEnv(d *appsv1.Deployment, name, value string) bool {
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name && e.Value == value {
			return true
		}
	}
	return false
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
		st := dep.Status
		return st.ObservedGeneration == dep.Generation && st.Replicas == n && st.UpdatedReplicas == n && st.AvailableReplicas == n, nil
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
	path, err := writeServiceAccountKubeconfig(t.Context(), kube, operatorNamespace, sa, t.TempDir())
	if err != nil {
		t.Fatalf("kubeconfig for ServiceAccount %s: %v", sa, err)
	}
	return path
}

// writeServiceAccountKubeconfig writes into dir a kubeconfig with a token
// (TokenRequest) of ServiceAccount sa in namespace.
func writeServiceAccountKubeconfig(ctx context.Context, kube kubernetes.Interface, namespace, sa, dir string) (string, error) {
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("TokenRequest: %w", err)
	}
	admin := cp.Config()
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"local": {Server: admin.Host, CertificateAuthorityData: admin.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"sa": {Token: tr.Status.Token}},
		Contexts:       map[string]*clientcmdapi.Context{"sa": {Cluster: "local", AuthInfo: "sa"}},
		CurrentContext: "sa",
	}, path); err != nil {
		return "", err
	}
	return path, nil
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

// stop ends the process (SIGTERM, then SIGKILL after a grace period, as
// the kubelet does) and waits for it; stopping twice is harmless.
func (r *replica) stop() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(15 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
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
		r.stop()
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
