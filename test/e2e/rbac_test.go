package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// readManifest decodes one YAML document of config/rbac into out.
func readManifest(t *testing.T, name string, out any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "config", "rbac", name))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Split(string(b), "\n---\n")[0]
	if err := yaml.Unmarshal([]byte(doc), out); err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
}

// TestShippedRBACIsEnough runs the real ogx-controller binary as a
// ServiceAccount bound to exactly the shipped ClusterRole, the opt-in any-UID
// ClusterRole (it runs with --server-any-uid) and the leader-election Role,
// with the API server enforcing owner-reference permissions, through a
// scenario that touches every child kind and adopts a legacy install. The
// storage adoption is first refused for want of the opt-in
// storage-adoption grant, then completes once it is bound in the
// namespace. Any other forbidden error fails it.
func TestShippedRBACIsEnough(t *testing.T) {
	bin, err := buildController()
	if err != nil {
		t.Fatalf("building ogx-controller: %v", err)
	}
	ns := cp.CreateNamespace(t, "rbac")
	kube, ogx := clients(t)
	ctx := t.Context()

	// The shipped rules, bound to a ServiceAccount of this namespace.
	var role, anyUID, adoption rbacv1.ClusterRole
	readManifest(t, "role.yaml", &role)
	readManifest(t, "any_uid_role.yaml", &anyUID)
	readManifest(t, "storage_adoption_role.yaml", &adoption)
	for _, r := range []*rbacv1.ClusterRole{&role, &anyUID, &adoption} {
		r.Name += "-" + ns
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kube.RbacV1().ClusterRoles().Delete(context.Background(), r.Name, metav1.DeleteOptions{})
			_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), r.Name, metav1.DeleteOptions{})
		})
	}
	var le rbacv1.Role
	readManifest(t, "leader_election_role.yaml", &le)
	le.Namespace = ns
	if _, err := kube.RbacV1().Roles(ns).Create(ctx, &le, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var certsRole, hashKeyRole rbacv1.Role
	readManifest(t, "webhook_certs_role.yaml", &certsRole)
	readManifest(t, "hash_key_role.yaml", &hashKeyRole)
	for _, r := range []*rbacv1.Role{&certsRole, &hashKeyRole} {
		r.Namespace = ns
		if _, err := kube.RbacV1().Roles(ns).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The ServiceAccount lives in a namespace of a fixed name, so that the
	// audit policy (main_test.go) can name its user.
	saNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: rbacSANamespace}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, saNS, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), saNS.Name, metav1.DeleteOptions{}) })
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "ogx-controller", Namespace: saNS.Name}}
	if _, err := kube.CoreV1().ServiceAccounts(saNS.Name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	subject := []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: saNS.Name}}
	for _, r := range []string{role.Name, anyUID.Name} {
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: r}, Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: r},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []string{le.Name, certsRole.Name, hashKeyRole.Name} {
		if _, err := kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: r, Namespace: ns}, Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: r},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := kube.CoreV1().ServiceAccounts(saNS.Name).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	admin := cp.Config()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"local": {Server: admin.Host, CertificateAuthorityData: admin.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"sa": {Token: tr.Status.Token}},
		Contexts:       map[string]*clientcmdapi.Context{"sa": {Cluster: "local", AuthInfo: "sa"}},
		CurrentContext: "sa",
	}, kubeconfig); err != nil {
		t.Fatal(err)
	}
	// The OpenShift security API, stood in by a CRD, makes the controller
	// bind N-sa to the anyuid SCC role, which it may only do through the
	// shipped bind rule.
	installOpenShiftSecurity(t)
	metricsAddr := framework.FreeAddr(t)
	proc := startProcessWith(t, bin, "rbac", "--kubeconfig="+kubeconfig, "--leader-elect=true",
		"--leader-election-lease-duration=4s", "--leader-election-renew-deadline=3s", "--leader-election-retry-period=1s",
		"--operator-namespace="+ns, "--watch-namespaces="+ns,
		// Admission with self-managed certificates and the HTTPS metrics
		// listener run too, so their rules are exercised.
		"--admission-bind-address=127.0.0.1:0", "--admission-cert-dir="+filepath.Join(t.TempDir(), "admission-tls"),
		"--discovery-interval=2s", "--metrics-bind-address="+metricsAddr, "--health-probe-bind-address=0", "--server-probe=false", "-v=2",
		"--server-any-uid")

	// A scenario touching every child kind.
	size := resource.MustParse("1Gi")
	if _, err := cp.CreateHostPathPV(ctx, "pv-"+ns, size, ""); err != nil {
		t.Fatal(err)
	}
	caPEM := testCA(t, "ca.example")
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "corp-ca", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"ca.crt": string(caPEM)}})
	// Generated mode: a base config and a provider whose token comes from a
	// Secret, so config generation and Secret reads run as the ServiceAccount.
	mustCreate(t, kube, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "base", Namespace: ns, Labels: watched(nil)},
		Data: map[string]string{"config.yaml": baseConfigYAML}})
	mustCreate(t, kube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "llm", Namespace: ns, Labels: watched(nil)},
		Data: map[string][]byte{"token": []byte("t")}})
	s := newServer(ns, "rbac")
	replicas := int32(2)
	s.Spec.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "config.yaml"}
	s.Spec.Providers = &ogxv1beta1.ProvidersSpec{Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
		Vllm: []ogxv1beta1.VLLMProvider{{Endpoint: "http://vllm:8000/v1", APIToken: &ogxv1beta1.SecretKeyRef{Name: "llm", Key: "token"}}}}}}
	s.Spec.TLS = &ogxv1beta1.OutboundTLSSpec{Trust: &ogxv1beta1.TrustSpec{CACertificates: []ogxv1beta1.ConfigMapKeyRef{{Name: "corp-ca", Key: "ca.crt"}}}}
	s.Spec.Network = &ogxv1beta1.NetworkSpec{Port: 8321, ExternalAccess: &ogxv1beta1.ExternalAccessSpec{Enabled: true},
		Policy: &ogxv1beta1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{}}}}
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: &replicas, Storage: &ogxv1beta1.PVCStorageSpec{Size: &size},
		Autoscaling: &ogxv1beta1.AutoscalingSpec{MaxReplicas: 3}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitReady(t, ogx, ns, "rbac", 2*time.Minute)
	if got.Status.ConfigGeneration == nil {
		t.Errorf("no generated config in status: %+v", got.Status)
	}
	framework.Poll(t, 30*time.Second, "RoleBinding rbac-rb", func(ctx context.Context) (bool, error) {
		rb, err := kube.RbacV1().RoleBindings(ns).Get(ctx, "rbac-rb", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		ok := rb.RoleRef.Kind == "ClusterRole" && rb.RoleRef.Name == "system:openshift:scc:anyuid" &&
			len(rb.Subjects) == 1 && rb.Subjects[0].Name == "rbac-sa" && rb.Subjects[0].Namespace == ns
		if !ok {
			t.Errorf("RoleBinding rbac-rb = %+v %+v", rb.RoleRef, rb.Subjects)
		}
		return true, nil
	})
	// The metrics listener authenticates and authorises with the
	// controller's own identity (TokenReview, SubjectAccessReview).
	checkMetricsAuth(t, metricsAddr, admin.BearerToken)
	framework.Poll(t, 60*time.Second, "the self-managed webhook certificate Secret", func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Secrets(ns).Get(ctx, "ogx-controller-webhook-tls", metav1.GetOptions{})
		return err == nil, nil
	})
	adoptLegacyInstall(t, ns, subject, adoption.Name)
	// Turning sections off exercises the deletes.
	updateServer(t, ogx, ns, "rbac", func(cur *ogxv1beta1.OGXServer) {
		cur.Spec.Network.ExternalAccess = nil
		cur.Spec.TLS = nil
		cur.Spec.Workload.Autoscaling = nil
		cur.Spec.Workload.Replicas = ptr.To(int32(1))
		cur.Spec.Network.Policy = &ogxv1beta1.NetworkPolicySpec{Enabled: ptr.To(false)}
	})
	waitGone(t, 30*time.Second, "NetworkPolicy", func(ctx context.Context) error {
		_, err := kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "rbac-network-policy", metav1.GetOptions{})
		return err
	})
	waitGone(t, 30*time.Second, "PodDisruptionBudget", func(ctx context.Context) error {
		_, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "rbac-pdb", metav1.GetOptions{})
		return err
	})
	waitGone(t, 30*time.Second, "Ingress", func(ctx context.Context) error {
		_, err := kube.NetworkingV1().Ingresses(ns).Get(ctx, "rbac-ingress", metav1.GetOptions{})
		return err
	})
	waitGone(t, 30*time.Second, "CA bundle", func(ctx context.Context) error {
		_, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "rbac-ca-bundle", metav1.GetOptions{})
		return err
	})
	waitReady(t, ogx, ns, "rbac", time.Minute)
	// The refusal adoptLegacyInstall provokes is logged at -v=2 and expected.
	if out := grepLines(proc.output(), "forbidden"); strings.Count(out, "\n") != strings.Count(out, "PVC adoption refused") {
		t.Errorf("ogx-controller hit forbidden errors with the shipped RBAC:\n%s", out)
	}
	checkRulesUsed(t, rbacUser, role.Rules, anyUID.Rules, adoption.Rules, le.Rules, certsRole.Rules, hashKeyRole.Rules)
}

// adoptLegacyInstall adopts a legacy install's PVC, Service and Ingress and
// releases the networking again. Each changes the ownerReferences of an
// object that exists, which an API server enforcing owner-reference
// permissions allows only to whoever may delete it. The default RBAC may
// not delete PVCs: the storage adoption is refused, with the legacy server
// left running, until adoptionRole is bound to subject in ns.
func adoptLegacyInstall(t *testing.T, ns string, subject []rbacv1.Subject, adoptionRole string) {
	t.Helper()
	kube, ogx := clients(t)
	if allowed := canDeletePVCs(t, ns, subject[0]); allowed {
		t.Fatal("the shipped RBAC lets the operator delete PVCs")
	}
	legacyInstall(t, ns, "legacy")
	s := newServer(ns, "adopter")
	s.Annotations = map[string]string{ogxv1beta1.AnnotationAdoptStorage: "legacy", ogxv1beta1.AnnotationAdoptNetworking: "legacy"}
	size := resource.MustParse("1Gi")
	s.Spec.Workload = &ogxv1beta1.WorkloadSpec{Storage: &ogxv1beta1.PVCStorageSpec{Size: &size}}
	if _, err := ogx.OgxV1beta1().OGXServers(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Poll(t, time.Minute, "a condition naming the storage-adoption grant", func(ctx context.Context) (bool, error) {
		cur, err := ogx.OgxV1beta1().OGXServers(ns).Get(ctx, "adopter", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range cur.Status.Conditions {
			if strings.Contains(c.Message, "ogx-controller-storage-adoption") {
				return true, nil
			}
		}
		return false, nil
	})
	dep, err := kube.AppsV1().Deployments(ns).Get(t.Context(), "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas != 1 {
		t.Errorf("the refused adoption scaled the legacy Deployment to %v", dep.Spec.Replicas)
	}
	if _, err := kube.RbacV1().RoleBindings(ns).Create(t.Context(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ogx-controller-storage-adoption", Namespace: ns}, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: adoptionRole},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A user error is retried after 30 s, then less often (docs/controllers.md).
	got := waitReady(t, ogx, ns, "adopter", 2*time.Minute)
	assertCondition(t, got, "StorageAdopted", metav1.ConditionTrue, "StorageAdopted", "PVC legacy-pvc adopted")
	assertCondition(t, got, "NetworkingAdopted", metav1.ConditionTrue, "NetworkingAdopted", "Networking adopted from legacy")
	updateServer(t, ogx, ns, "adopter", func(cur *ogxv1beta1.OGXServer) {
		delete(cur.Annotations, ogxv1beta1.AnnotationAdoptNetworking)
	})
	waitCondition(t, ogx, ns, "adopter", "NetworkingAdopted", "AdoptionAnnotationRemoved", "Adoption annotation removed")
}

// canDeletePVCs asks the API server whether subject may delete PVCs in ns
// (kubectl auth can-i delete persistentvolumeclaims --as).
func canDeletePVCs(t *testing.T, ns string, subject rbacv1.Subject) bool {
	t.Helper()
	kube, _ := clients(t)
	r, err := kube.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + subject.Namespace + ":" + subject.Name,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + subject.Namespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "persistentvolumeclaims"},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status.Allowed
}

// grepLines returns the lines of s containing sub (case-insensitive).
func grepLines(s, sub string) string {
	var b bytes.Buffer
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(strings.ToLower(l), sub) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// checkMetricsAuth: no token is refused with 401, a token allowed to get
// /metrics (the admin's) is served.
func checkMetricsAuth(t *testing.T, addr, token string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed test listener
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

// installOpenShiftSecurity installs the stand-in security.openshift.io CRD
// and the anyuid ClusterRole for the test, removing both when it ends.
func installOpenShiftSecurity(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	if err := cp.InstallCRDs(ctx, filepath.Join(root, "test", "e2e", "testdata", "openshift-security-crd.yaml")); err != nil {
		t.Fatal(err)
	}
	kube := cp.Client()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:openshift:scc:anyuid"}}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		client, err := apiextensionsclient.NewForConfig(quietConfig())
		if err != nil {
			t.Errorf("apiextensions client: %v", err)
			return
		}
		_ = client.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "securitycontextconstraints.security.openshift.io", metav1.DeleteOptions{})
		_ = kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
}
