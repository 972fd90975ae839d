package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
	"github.com/ogx-k8s/ogx-controller/test/framework"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// ogxServers is the resource of the bundle's owned API.
var ogxServers = schema.GroupVersionResource{Group: "ogx.io", Version: "v1beta1", Resource: "ogxservers"}

// targetNamespacesAnnotation is where OLM writes the OperatorGroup's
// target namespaces on the Deployment's pod template; the CSV's
// WATCH_NAMESPACES reads it through the downward API.
const targetNamespacesAnnotation = "olm.targetNamespaces"

// TestBundleInstallsAndRuns does, without OLM, what OLM does to install
// the bundle in SingleNamespace mode (the operator in one namespace,
// watching another) and shows that the operator runs under what the bundle
// grants it.
//
// What is proven, and how:
//
//   - the bundle's CRDs install and are served (TestMain);
//   - from the CSV, as OLM's install strategy does: the ServiceAccount in
//     the operator namespace; spec.install.spec.permissions as a Role and
//     RoleBinding in the operator namespace and, as OLM copies them for an
//     OperatorGroup with target namespaces, in the watched namespace;
//     clusterPermissions as a ClusterRole and ClusterRoleBinding; the other
//     bundle manifests (metrics Service, PodDisruptionBudget, metrics-reader
//     ClusterRole) in the operator namespace or cluster-wide; and the
//     Deployment with the olm.targetNamespaces annotation on its pod
//     template. The apiserver accepts all of them, the Deployment rolls
//     out on kwok's fake node (pods that run no process), and the bundle's
//     PodDisruptionBudget and metrics Service select its pods;
//   - the real ogx-controller binary, run out of cluster with a token of
//     that ServiceAccount (so it holds exactly the CSV's RBAC) and with the
//     Deployment's args and env as stored by the apiserver, with only the
//     pod-local parts replaced: listener addresses become free loopback
//     ports, the admission cert dir a temporary directory holding a
//     self-signed pair (standing in for the certificate OLM mounts there,
//     as the CSV asks with --admission-cert-management=external), the
//     in-cluster config a kubeconfig, --server-probe=false is added
//     (nothing listens in kwok pods) and the downward-API env is resolved
//     from the Deployment;
//   - the first alm-examples OGXServer, created in the watched namespace,
//     becomes Ready at its generation, the same OGXServer in an unwatched
//     namespace is left alone, the admission listener serves the mounted
//     certificate, and the controller's log has no "forbidden";
//   - every alm-examples object is accepted by the apiserver (dry run).
//
// Not proven: OLM itself (no catalog, Subscription, InstallPlan or
// OperatorGroup; the object names here are the test's, not OLM's), the
// bundle image (bundle.Dockerfile is checked against the metadata in
// test/bundle, not built), the operator image, and the CSV's
// webhookdefinitions: OLM would create the ValidatingWebhookConfiguration
// and issue the certificate; here no webhook is registered with the
// apiserver, so the dry runs go through the CRD schema only.
func TestBundleInstallsAndRuns(t *testing.T) {
	ctx := t.Context()
	kube := cp.Client()
	dyn := dynamic.NewForConfigOrDie(cp.Config())

	b, err := loadBundle(filepath.Join(root, "bundle", "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	c := b.csv
	if !c.supports("SingleNamespace") {
		t.Fatalf("CSV %s does not support the SingleNamespace install mode this test uses", c.Metadata.Name)
	}
	if c.Spec.Install.Strategy != "deployment" || len(c.Spec.Install.Spec.Deployments) != 1 {
		t.Fatalf("CSV %s: want install strategy deployment with one Deployment, got %q with %d",
			c.Metadata.Name, c.Spec.Install.Strategy, len(c.Spec.Install.Spec.Deployments))
	}
	opNS := cp.CreateNamespace(t, "olm-operator")
	watched := cp.CreateNamespace(t, "olm-watched")
	unwatched := cp.CreateNamespace(t, "olm-unwatched")

	dep := installCSV(t, kube, c, opNS, watched)
	applyOthers(t, b.others, opNS)
	dep = waitDeploymentAvailable(t, kube, opNS, dep.Name, *dep.Spec.Replicas)
	checkSelectsPods(t, kube, b.others, opNS, *dep.Spec.Replicas)

	bin := framework.BuildController(t, root)
	kubeconfig := serviceAccountKubeconfig(t, kube, opNS, dep.Spec.Template.Spec.ServiceAccountName)
	ctrl := startController(t, bin, dep, kubeconfig)

	examples, err := c.almExamples()
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) == 0 {
		t.Fatal("alm-examples is empty")
	}
	first := examples[0]
	if first.GroupVersionKind().GroupVersion() != ogxServers.GroupVersion() || first.GetKind() != "OGXServer" {
		t.Fatalf("the first alm-example is %s, want an OGXServer of %s", first.GroupVersionKind(), ogxServers.GroupVersion())
	}
	// The unwatched one first, so the controller has had every chance to
	// touch it by the time the watched one is Ready.
	for _, ns := range []string{unwatched, watched} {
		obj := first.DeepCopy()
		obj.SetNamespace(ns)
		if _, err := dyn.Resource(ogxServers).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the first alm-example in %s: %v", ns, err)
		}
	}
	waitReady(t, dyn, watched, first.GetName(), 2*time.Minute)
	got, err := dyn.Resource(ogxServers).Namespace(unwatched).Get(ctx, first.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if status, ok := got.Object["status"]; ok {
		t.Errorf("OGXServer in unwatched namespace %s has status %v", unwatched, status)
	}

	checkAlmExamplesAccepted(t, dyn, examples, watched)
	checkServesCert(t, ctrl)

	if out := ctrl.output(); strings.Contains(strings.ToLower(out), "forbidden") {
		t.Errorf("ogx-controller hit forbidden errors with the CSV's RBAC:\n%s", grepLines(out, "forbidden"))
	}
}

// installCSV does what OLM's install strategy does with the CSV for an
// OperatorGroup in opNS targeting watched, and returns the created
// Deployment.
func installCSV(t *testing.T, kube kubernetes.Interface, c *csv, opNS, watched string) *appsv1.Deployment {
	t.Helper()
	ctx := t.Context()
	install := c.Spec.Install.Spec
	accounts := map[string]bool{}
	for _, p := range append(append([]permission(nil), install.Permissions...), install.ClusterPermissions...) {
		accounts[p.ServiceAccountName] = true
	}
	d := install.Deployments[0]
	if sa := d.Spec.Template.Spec.ServiceAccountName; !accounts[sa] {
		t.Fatalf("the Deployment runs as ServiceAccount %q, which the CSV grants no permissions", sa)
	}
	for sa := range accounts {
		if _, err := kube.CoreV1().ServiceAccounts(opNS).Create(ctx, &corev1.ServiceAccount{
			ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating ServiceAccount %s: %v", sa, err)
		}
	}
	subject := func(sa string) []rbacv1.Subject {
		return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: opNS}}
	}
	for i, p := range install.Permissions {
		name := fmt.Sprintf("%s-%d", c.Metadata.Name, i)
		for _, ns := range []string{opNS, watched} {
			if _, err := kube.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: p.Rules}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("the apiserver rejected the Role from permissions[%d] in %s: %v", i, ns, err)
			}
			if _, err := kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
				Subjects:   subject(p.ServiceAccountName),
			}, metav1.CreateOptions{}); err != nil {
				t.Fatalf("the apiserver rejected the RoleBinding from permissions[%d] in %s: %v", i, ns, err)
			}
		}
	}
	for i, p := range install.ClusterPermissions {
		name := fmt.Sprintf("%s-%s-%d", c.Metadata.Name, opNS, i)
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: p.Rules}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the apiserver rejected the ClusterRole from clusterPermissions[%d]: %v", i, err)
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   subject(p.ServiceAccountName),
		}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the apiserver rejected the ClusterRoleBinding from clusterPermissions[%d]: %v", i, err)
		}
	}
	spec := *d.Spec.DeepCopy()
	if spec.Template.Annotations == nil {
		spec.Template.Annotations = map[string]string{}
	}
	spec.Template.Annotations[targetNamespacesAnnotation] = watched
	created, err := kube.AppsV1().Deployments(opNS).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name, Labels: d.Label}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the apiserver rejected the CSV's Deployment %s: %v", d.Name, err)
	}
	return created
}

// applyOthers creates the bundle's other manifests, namespaced ones in
// the operator namespace, as OLM does.
func applyOthers(t *testing.T, objs []*unstructured.Unstructured, opNS string) {
	t.Helper()
	cfg := cp.Config()
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(kubernetes.NewForConfigOrDie(cfg).Discovery()))
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s %s: no API for it: %v", gvk, u.GetName(), err)
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == apimeta.RESTScopeNameNamespace {
			u = u.DeepCopy()
			u.SetNamespace(opNS)
			ri = dyn.Resource(m.Resource).Namespace(opNS)
		}
		if _, err := ri.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the apiserver rejected %s %s: %v", gvk.Kind, u.GetName(), err)
		}
	}
	t.Logf("created %d other bundle objects", len(objs))
}

// checkSelectsPods: every PodDisruptionBudget of the bundle counts the
// Deployment's n pods as healthy, and every Service has them as ready
// endpoints on each of its ports, so their selectors and named target
// ports match the CSV's pod template.
func checkSelectsPods(t *testing.T, kube kubernetes.Interface, others []*unstructured.Unstructured, ns string, n int32) {
	t.Helper()
	checked := 0
	for _, u := range others {
		name := u.GetName()
		switch u.GroupVersionKind().GroupKind() {
		case schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}:
			framework.Poll(t, time.Minute, "PodDisruptionBudget "+name+" to count the pods", func(ctx context.Context) (bool, error) {
				pdb, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.CurrentHealthy == n, nil
			})
		case schema.GroupKind{Kind: "Service"}:
			framework.Poll(t, time.Minute, "Service "+name+" to have the pods as endpoints", func(ctx context.Context) (bool, error) {
				svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				slices, err := kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
					LabelSelector: discoveryv1.LabelServiceName + "=" + name})
				if err != nil {
					return false, err
				}
				ready := 0
				for _, s := range slices.Items {
					if !resolvesAllPorts(svc, s.Ports) {
						continue
					}
					for _, e := range s.Endpoints {
						if e.Conditions.Ready != nil && *e.Conditions.Ready {
							ready++
						}
					}
				}
				return ready == int(n), nil
			})
		default:
			continue
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("the bundle has no PodDisruptionBudget or Service to check against the Deployment's pods")
	}
}

// resolvesAllPorts reports whether an EndpointSlice carries every port of
// the Service with a number: the EndpointSlice controller leaves out a
// port whose named targetPort matches no container port of the pods.
func resolvesAllPorts(svc *corev1.Service, ports []discoveryv1.EndpointPort) bool {
	for _, sp := range svc.Spec.Ports {
		found := false
		for _, p := range ports {
			found = found || (p.Name != nil && *p.Name == sp.Name && p.Port != nil)
		}
		if !found {
			return false
		}
	}
	return true
}

func waitDeploymentAvailable(t *testing.T, kube kubernetes.Interface, ns, name string, n int32) *appsv1.Deployment {
	t.Helper()
	var dep *appsv1.Deployment
	framework.Poll(t, 2*time.Minute, fmt.Sprintf("Deployment %s %d/%d available", name, n, n), func(ctx context.Context) (bool, error) {
		var err error
		dep, err = kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return dep.Status.AvailableReplicas == n && dep.Status.ObservedGeneration == dep.Generation, nil
	})
	return dep
}

// serviceAccountKubeconfig writes a kubeconfig with a token of the
// ServiceAccount, so a process using it has exactly the CSV's RBAC.
func serviceAccountKubeconfig(t *testing.T, kube kubernetes.Interface, ns, sa string) string {
	t.Helper()
	tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), sa, &authenticationv1.TokenRequest{
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

// controller is the ogx-controller process standing in for a pod of the
// CSV's Deployment.
type controller struct {
	admissionAddr string
	caPEM         []byte // the CA of the admission listener's certificate
	cmd           *exec.Cmd
	mu            sync.Mutex
	log           bytes.Buffer
	done          chan struct{}
}

func (c *controller) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.Write(p)
}

func (c *controller) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.log.String()
}

// startController runs the binary with the Deployment's container args
// and env, replacing only what belongs to a pod (see the test's doc
// comment).
func startController(t *testing.T, bin string, dep *appsv1.Deployment, kubeconfig string) *controller {
	t.Helper()
	c := dep.Spec.Template.Spec.Containers[0]
	ctrl := &controller{done: make(chan struct{})}
	var args []string
	external := false
	for _, a := range c.Args {
		name, value, _ := strings.Cut(a, "=")
		switch name {
		case "--health-probe-bind-address", "--metrics-bind-address":
			a = name + "=" + framework.FreeAddr(t)
		case "--admission-bind-address":
			ctrl.admissionAddr = framework.FreeAddr(t)
			a = name + "=" + ctrl.admissionAddr
		case "--admission-cert-dir":
			dir := t.TempDir()
			ctrl.caPEM = writeServingPair(t, dir)
			a = name + "=" + dir
		case "--admission-cert-management":
			external = value == "external"
		}
		args = append(args, a)
	}
	if ctrl.admissionAddr == "" || ctrl.caPEM == nil || !external {
		t.Fatalf("the CSV's args %v do not serve admission from an externally managed cert dir", c.Args)
	}
	args = append(args, "--kubeconfig="+kubeconfig, "--server-probe=false", "-v=2")
	env := append(os.Environ(), "HOSTNAME="+dep.Name+"-e2e")
	for _, e := range c.Env {
		env = append(env, e.Name+"="+envValue(t, dep, c, e))
	}
	ctrl.cmd = exec.Command(bin, args...)
	ctrl.cmd.Env = env
	ctrl.cmd.Stdout, ctrl.cmd.Stderr = ctrl, ctrl
	if err := ctrl.cmd.Start(); err != nil {
		t.Fatalf("starting ogx-controller: %v", err)
	}
	go func() { _ = ctrl.cmd.Wait(); close(ctrl.done) }()
	t.Cleanup(func() {
		_ = ctrl.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ctrl.done:
		case <-time.After(15 * time.Second):
			_ = ctrl.cmd.Process.Kill()
			<-ctrl.done
		}
		if t.Failed() {
			t.Logf("ogx-controller output:\n%s", ctrl.output())
		}
	})
	t.Logf("ogx-controller: %s %s", bin, strings.Join(args, " "))
	return ctrl
}

// envValue resolves one env var of the container the way the kubelet
// would in a pod of dep.
func envValue(t *testing.T, dep *appsv1.Deployment, c corev1.Container, e corev1.EnvVar) string {
	t.Helper()
	switch {
	case e.ValueFrom == nil:
		return e.Value
	case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
		return dep.Namespace
	case e.ValueFrom.FieldRef != nil && strings.HasPrefix(e.ValueFrom.FieldRef.FieldPath, "metadata.annotations['"):
		key := strings.TrimSuffix(strings.TrimPrefix(e.ValueFrom.FieldRef.FieldPath, "metadata.annotations['"), "']")
		v, ok := dep.Spec.Template.Annotations[key]
		if !ok {
			t.Fatalf("env %s reads pod annotation %s, which the Deployment's pod template lacks", e.Name, key)
		}
		return v
	case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
		limit := c.Resources.Limits[corev1.ResourceMemory]
		return strconv.FormatInt(limit.Value(), 10)
	}
	t.Fatalf("env %s of the CSV's container: this test does not know how to provide it", e.Name)
	return ""
}

// writeServingPair writes tls.crt and tls.key for 127.0.0.1, signed by a
// fresh CA, into dir, where OLM would mount the certificate it issues, and
// returns the CA certificate.
func writeServingPair(t *testing.T, dir string) (caPEM []byte) {
	t.Helper()
	ca, err := testcerts.NewCA("olm-e2e-webhook-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(testcerts.Leaf{CommonName: "olm-e2e-webhook", IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range pair.Files() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ca.PEM
}

// checkServesCert: the admission listener presents the certificate from
// the cert dir, i.e. with external management the operator serves what it
// is given instead of making its own.
func checkServesCert(t *testing.T, ctrl *controller) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ctrl.caPEM) {
		t.Fatal("the test's own CA certificate does not parse")
	}
	framework.Poll(t, 30*time.Second, "the admission listener to serve the mounted certificate", func(ctx context.Context) (bool, error) {
		d := tls.Dialer{Config: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
		conn, err := d.DialContext(ctx, "tcp", ctrl.admissionAddr)
		if err != nil {
			return false, err
		}
		return true, conn.Close()
	})
}

// checkAlmExamplesAccepted dry-runs every alm-example in ns: the
// examples the console offers must pass the installed CRDs' schemas.
func checkAlmExamplesAccepted(t *testing.T, dyn dynamic.Interface, examples []*unstructured.Unstructured, ns string) {
	t.Helper()
	for i, ex := range examples {
		gvk := ex.GroupVersionKind()
		if gvk.GroupVersion() != ogxServers.GroupVersion() || gvk.Kind != "OGXServer" {
			t.Errorf("alm-examples[%d] is a %s; this test only knows the resource of OGXServer", i, gvk)
			continue
		}
		obj := ex.DeepCopy()
		obj.SetNamespace(ns)
		obj.SetName(obj.GetName() + "-dry-run")
		if _, err := dyn.Resource(ogxServers).Namespace(ns).Create(t.Context(), obj,
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Errorf("the apiserver rejected alm-examples[%d] (%s): %v", i, ex.GetName(), err)
		}
	}
}

// waitReady waits for Ready=True observed at the current generation.
func waitReady(t *testing.T, dyn dynamic.Interface, ns, name string, timeout time.Duration) {
	t.Helper()
	framework.Poll(t, timeout, fmt.Sprintf("OGXServer %s/%s Ready", ns, name), func(ctx context.Context) (bool, error) {
		u, err := dyn.Resource(ogxServers).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
		if err != nil {
			return false, err
		}
		for _, raw := range conds {
			cond, ok := raw.(map[string]any)
			if !ok || cond["type"] != "Ready" {
				continue
			}
			gen, _, _ := unstructured.NestedInt64(cond, "observedGeneration")
			return cond["status"] == string(metav1.ConditionTrue) && gen == u.GetGeneration(), nil
		}
		return false, nil
	})
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
