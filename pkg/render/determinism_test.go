package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// shuffledMap builds a map by inserting the entries in a random order, so
// that maps equal in content differ in their internal layout.
func shuffledMap[K ~string, V any](r *rand.Rand, keys []string, value func(string) V) map[K]V {
	m := make(map[K]V, len(keys))
	for _, i := range r.Perm(len(keys)) {
		m[K(keys[i])] = value(keys[i])
	}
	return m
}

func keys(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", prefix, i)
	}
	return out
}

// renderAll renders every child of a spec full of maps, with map and
// Secret-env inputs built in an order chosen by r, and returns the JSON of
// each.
func renderAll(t *testing.T, r *rand.Rand) [][]byte {
	t.Helper()
	labelValue := func(k string) string { return "v" + k }
	s := server(fullSpec, func(s *ogxv1beta1.OGXServerSpec) {
		workload(s).Autoscaling = &ogxv1beta1.AutoscalingSpec{MaxReplicas: 4,
			TargetCPUUtilizationPercentage: ptr.To(int32(70)), TargetMemoryUtilizationPercentage: ptr.To(int32(80))}
		workload(s).Resources.Requests = shuffledMap[corev1.ResourceName](r, append(keys("example.com/dev", 8), "cpu", "memory"),
			func(string) resource.Quantity { return resource.MustParse("1") })
		workload(s).TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: shuffledMap[string](r, keys("sel", 12), labelValue)},
		}}
		network(s).ExternalAccess = &ogxv1beta1.ExternalAccessSpec{Enabled: true, Hostname: "ogx.example.com"}
		policy(s).Ingress = []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
			PodSelector: &metav1.LabelSelector{MatchLabels: shuffledMap[string](r, keys("pod", 12), labelValue)}}}}}
		policy(s).Egress = []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: shuffledMap[string](r, keys("ns", 12), labelValue)}}}}}
	})
	in := inputs(fullInputs, func(in *Inputs) {
		in.SecretEnv = nil
		for _, k := range keys("OGX_P", 10) {
			in.SecretEnv = append(in.SecretEnv, ogxv1beta1.SecretEnvVar{Name: k, Ref: ogxv1beta1.SecretKeyRef{Name: "s", Key: k}})
		}
		r.Shuffle(len(in.SecretEnv), func(i, j int) { in.SecretEnv[i], in.SecretEnv[j] = in.SecretEnv[j], in.SecretEnv[i] })
	})
	// The bundle's own order is pkg/resolve's (TestAssembleCABundle); here
	// it is one fixed text.
	bundle := testCertCached(t, "ca0") + "\n" + testCertCached(t, "ca1")
	d, err := Deployment(s, in)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, obj := range []any{
		d, ServiceAccount(s, in), RoleBinding(s, in), Service(s, in), PVC(s, in), NetworkPolicy(s, in),
		HPA(s, in), PDB(s, in), Ingress(s, in), CABundleConfigMap(s, bundle),
		GeneratedConfigMap(s, in.RuntimeConfig.ConfigMapName, "version: \"2\"\n"),
	} {
		out = append(out, asJSON(t, obj))
	}
	return out
}

var certCache = map[string]string{}

// testCertCached generates each named certificate once per test binary, so
// that all renders of the determinism test see the same bytes.
func testCertCached(t *testing.T, cn string) string {
	if c, ok := certCache[cn]; ok {
		return c
	}
	ca, err := testcerts.NewCA(cn + "-ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(testcerts.Leaf{CommonName: cn})
	if err != nil {
		t.Fatal(err)
	}
	c := string(p.CertPEM)
	certCache[cn] = c
	return c
}

func TestDeterminism(t *testing.T) {
	first := renderAll(t, rand.New(rand.NewPCG(1, 1)))
	for seed := uint64(2); seed < 30; seed++ {
		got := renderAll(t, rand.New(rand.NewPCG(seed, seed*7)))
		for i := range first {
			if !bytes.Equal(first[i], got[i]) {
				t.Fatalf("seed %d: object %d differs:\n%s\n%s", seed, i, first[i], got[i])
			}
		}
	}
}
