package main

// The dual-path test: every config golden case (pkg/configgen/testdata) and
// every render golden case (testdata/render) runs through the render
// command and through the controllers (a Manager on fake clientsets whose
// caches hold the same objects), and both must give the same children and
// config, or the same error. Both resolve through pkg/resolve; this test
// is what notices when the two paths around it drift apart.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/controller"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	ogxfake "github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

const (
	configGoldenDir = "../../pkg/configgen/testdata"
	// dualBaseName is the ConfigMap that carries a case's base config on
	// both paths: the controller has no --base.
	dualBaseName = "dualpath-base"
	dualUID      = "7d7c1f0e-2b1d-4a4f-8f0e-1c2d3e4f5a6b"
	// dualTimeout bounds how long the controllers may take to converge.
	dualTimeout = 30 * time.Second
)

// dualSkips are the render cases, each with the reason, that test only the command's own concerns
// (flags, reading and decoding files, the pre-admission checks of
// --validate), which the controllers never see.
var dualSkips = map[string]string{
	"bad-yaml":         "input that is not YAML: a CLI read error",
	"missing-file":     "an unreadable -f file: a CLI read error",
	"usage-errors":     "a bad flag value: a CLI usage error",
	"two-servers":      "two OGXServers in the input: a CLI input error",
	"llsd-input":       "a LlamaStackDistribution input: the CLI points at migrate",
	"unsupported-kind": "a Deployment in the input: a CLI input error",
	"duplicate-input":  "the same Secret given twice: a CLI input error",
	"validate-rejects": "--validate runs admission; the controller's path starts after the API server accepted the object",
	"validate-schema":  "--validate runs the CRD schema; the controller's path starts after the API server accepted the object",
	"hash-collision": "the colliding ConfigMap lacks the ogx.io/watch label, so the controller's cache never shows it and its " +
		"create-only apply meets it in the API server (a ChildConflict), which the fake clientset does not model",
}

// dualCase is one case's objects and the process inputs of both paths.
type dualCase struct {
	server            *ogxv1beta1.OGXServer
	configMaps        []*corev1.ConfigMap
	secrets           []*corev1.Secret
	operatorNamespace string
	overrides         map[string]string
	monitoring        bool
	openShift         bool
	anyUID            bool
}

// dualHashKey is the hash key of both paths: the controller's hash-key
// Secret holds it, render reads it from --hash-key-file.
const dualHashKey = "dualpath-hash-key"

func TestDualPath(t *testing.T) {
	n := 0
	cases, err := os.ReadDir(configGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cases {
		if !e.IsDir() || e.Name() == "fuzz" {
			continue
		}
		n++
		t.Run("config/"+e.Name(), func(t *testing.T) { runDual(t, configCase(t, filepath.Join(configGoldenDir, e.Name()))) })
	}
	cliOnlySeen := map[string]bool{}
	cases, err = os.ReadDir(renderTestdata)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cases {
		if !e.IsDir() {
			continue
		}
		n++
		if _, cliOnly := dualSkips[e.Name()]; cliOnly {
			// Its golden test (TestRenderGolden) covers it; the
			// controllers never see such input.
			cliOnlySeen[e.Name()] = true
			continue
		}
		t.Run("render/"+e.Name(), func(t *testing.T) {
			runDual(t, renderCase(t, filepath.Join(renderTestdata, e.Name())))
		})
	}
	for name := range dualSkips {
		if !cliOnlySeen[name] {
			t.Errorf("dualSkips names %q, which is not a render golden case", name)
		}
	}
	if n < 100 {
		t.Fatalf("only %d cases", n)
	}
}

// TestDualPathSpecErrorBeforeBase pins which of two failures both paths
// report when a server has a spec error and its base config cannot be
// read: the spec error, because the spec checks run before the base is
// read (docs/config-generation.md, Pipeline). TestDualPath already shows
// the controller gives render's message; this says which message that is,
// and that the base is not reported as well.
func TestDualPathSpecErrorBeforeBase(t *testing.T) {
	const (
		specErr = "env var name OGX_METRICS_PORT is reserved"
		baseRef = "both-base"
	)
	c := renderCase(t, filepath.Join(renderTestdata, "spec-error-and-no-base"))
	if c.server.Spec.BaseConfig == nil || c.server.Spec.BaseConfig.Name != baseRef {
		t.Fatalf("the case must reference base ConfigMap %s, has %+v", baseRef, c.server.Spec.BaseConfig)
	}
	c.server.UID, c.server.Generation = dualUID, 1
	cli := c.runCLI(t)
	if cli.code != exitFailed || !strings.Contains(cli.err, specErr) {
		t.Errorf("render exited %d with error %q, want %d and the spec error %q", cli.code, cli.err, exitFailed, specErr)
	}
	got := c.runController(t)
	defer got.stop()
	// Once the pass has reported the spec error it has stopped: no
	// condition of that status can name the base.
	conds := got.waitMessage(t, specErr)
	for _, cond := range conds {
		if strings.Contains(cond.Message, baseRef) {
			t.Errorf("condition %s reports the base config as well: %q", cond.Type, cond.Message)
		}
	}
}

// configCase reads a config golden case: its OGXServer, with its base
// config (empty when the case has none) in a watched ConfigMap that
// spec.baseConfig names.
func configCase(t *testing.T, dir string) *dualCase {
	t.Helper()
	cr, err := os.ReadFile(filepath.Join(dir, "cr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := configgen.ParseServer(cr)
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(dir, "base.yaml"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if s.Namespace == "" {
		s.Namespace = renderDefaultNamespace
	}
	c := &dualCase{server: s, operatorNamespace: renderDefaultOperatorNamespace}
	c.withBase(base)
	return c
}

// renderCase reads a render golden case with the command's own decoding.
func renderCase(t *testing.T, dir string) *dualCase {
	t.Helper()
	args, stdin := readCase(t, dir)
	r := &renderRun{stdin: bytes.NewReader(stdin), stderr: io.Discard}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	err = r.parseFlags(args)
	if err == nil {
		err = r.readInputs()
	}
	if cerr := os.Chdir(wd); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatalf("reading the case: %v", err)
	}
	c := &dualCase{server: r.server, operatorNamespace: r.opts.operatorNamespace, overrides: r.overrides,
		monitoring: r.opts.assumeMonitoring, openShift: r.opts.assumeOpenShift, anyUID: r.opts.serverAnyUID}
	for _, cm := range r.src.configMaps {
		c.configMaps = append(c.configMaps, cm)
	}
	for _, sec := range r.src.secrets {
		c.secrets = append(c.secrets, sec)
	}
	sort.Slice(c.configMaps, func(i, j int) bool { return c.configMaps[i].Name < c.configMaps[j].Name })
	sort.Slice(c.secrets, func(i, j int) bool { return c.secrets[i].Name < c.secrets[j].Name })
	if r.baseBytes != nil {
		c.withBase(r.baseBytes)
	}
	return c
}

// withBase puts base in a watched ConfigMap that spec.baseConfig names, so
// both paths read the same base (the controller has no --base). A case
// that names its own base ConfigMap keeps that reference, so what its name
// and key show (in a message, say) is tested as written; the base replaces
// any input ConfigMap of that name, as --base wins over it in render. A
// case without one gets dualBaseName.
func (c *dualCase) withBase(base []byte) {
	if c.server.Spec.BaseConfig == nil {
		c.server.Spec.BaseConfig = &ogxv1beta1.ConfigMapKeyRef{Name: dualBaseName, Key: "config.yaml"}
	}
	ref := c.server.Spec.BaseConfig
	c.configMaps = slices.DeleteFunc(c.configMaps, func(cm *corev1.ConfigMap) bool { return cm.Name == ref.Name })
	c.configMaps = append(c.configMaps, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: c.server.Namespace, Labels: map[string]string{ogxv1beta1.WatchLabel: "true"}},
		Data:       map[string]string{ref.Key: string(base)},
	})
}

// TestDualCaseWithBase pins where withBase puts the base: under the case's
// own reference when it has one (replacing an input ConfigMap of that
// name), else under dualBaseName.
func TestDualCaseWithBase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ref     *ogxv1beta1.ConfigMapKeyRef
		inputs  []*corev1.ConfigMap
		wantRef ogxv1beta1.ConfigMapKeyRef
		wantCMs map[string]map[string]string // name -> data
	}{{
		name:    "no reference",
		inputs:  []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "other"}, Data: map[string]string{"k": "v"}}},
		wantRef: ogxv1beta1.ConfigMapKeyRef{Name: dualBaseName, Key: "config.yaml"},
		wantCMs: map[string]map[string]string{"other": {"k": "v"}, dualBaseName: {"config.yaml": "version: 2\n"}},
	}, {
		name:    "own reference",
		ref:     &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "run.yaml"},
		wantRef: ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "run.yaml"},
		wantCMs: map[string]map[string]string{"base": {"run.yaml": "version: 2\n"}},
	}, {
		name:    "own reference in the input",
		ref:     &ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "run.yaml"},
		inputs:  []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "base"}, Data: map[string]string{"run.yaml": "stale"}}},
		wantRef: ogxv1beta1.ConfigMapKeyRef{Name: "base", Key: "run.yaml"},
		wantCMs: map[string]map[string]string{"base": {"run.yaml": "version: 2\n"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := &dualCase{server: &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}}, configMaps: tc.inputs}
			c.server.Spec.BaseConfig = tc.ref
			c.withBase([]byte("version: 2\n"))
			if diff := cmp.Diff(tc.wantRef, *c.server.Spec.BaseConfig); diff != "" {
				t.Errorf("spec.baseConfig (-want +got):\n%s", diff)
			}
			got := map[string]map[string]string{}
			for _, cm := range c.configMaps {
				got[cm.Name] = cm.Data
				if cm.Name == tc.wantRef.Name && (cm.Namespace != "ns" || cm.Labels[ogxv1beta1.WatchLabel] != "true") {
					t.Errorf("base ConfigMap %s/%s labels %v: want it watched in the server's namespace", cm.Namespace, cm.Name, cm.Labels)
				}
			}
			if diff := cmp.Diff(tc.wantCMs, got); diff != "" {
				t.Errorf("ConfigMaps by name (-want +got):\n%s", diff)
			}
		})
	}
}

// runDual runs c through both paths and compares them.
func runDual(t *testing.T, c *dualCase) {
	c.server.UID = dualUID
	c.server.Generation = 1
	cli := c.runCLI(t)
	got := c.runController(t)
	defer got.stop()
	switch errs := validation.Validate(got.server); {
	case len(errs) > 0:
		// The controllers re-run the admission validator on every pass
		// (docs/admission.md); render runs it only with --validate.
		got.waitMessage(t, errs[0].Error())
	case cli.code == exitOK && strings.Contains(cli.stderr, "not in the input"):
		// render leaves out what the input lacks (docs/cli.md); the
		// controller must report the reference instead.
		got.waitMessage(t, ": not found (referenced by ")
	case cli.code == exitOK:
		got.waitChildren(t, c, cli.objects)
	case strings.HasPrefix(cli.err, "no base config: pass --base, include ConfigMap"):
		got.waitMessage(t, "failed to find referenced base ConfigMap "+c.server.Namespace+"/")
	default:
		got.waitMessage(t, cli.err)
	}
}

// cliResult is what render printed.
type cliResult struct {
	code    int
	stderr  string
	err     string // the first error line, without "error: "
	objects map[string]map[string]any
}

// runCLI writes the case's objects to one input file and renders it.
func (c *dualCase) runCLI(t *testing.T) cliResult {
	t.Helper()
	var in bytes.Buffer
	docs := []any{c.server}
	for _, cm := range c.configMaps {
		docs = append(docs, cm)
	}
	for _, s := range c.secrets {
		docs = append(docs, s)
	}
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString("---\n")
		in.Write(b)
	}
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, in.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", file, "--operator-namespace", c.operatorNamespace, "-o", "json"}
	for name, image := range c.overrides {
		args = append(args, "--image-override", name+"="+image)
	}
	if c.monitoring {
		args = append(args, "--assume-monitoring-crds")
	}
	if c.openShift {
		args = append(args, "--assume-openshift")
	}
	if c.anyUID {
		args = append(args, "--server-any-uid")
	}
	keyFile := filepath.Join(t.TempDir(), "hash.key")
	if err := os.WriteFile(keyFile, []byte(dualHashKey), 0o600); err != nil {
		t.Fatal(err)
	}
	args = append(args, "--hash-key-file", keyFile)
	var out, errb bytes.Buffer
	res := cliResult{code: runRender(args, nil, &out, &errb), stderr: errb.String()}
	for _, l := range strings.Split(res.stderr, "\n") {
		if m, ok := strings.CutPrefix(l, "error: "); ok && res.err == "" {
			res.err = m
		}
	}
	if res.code != exitOK {
		if res.code != exitFailed {
			t.Fatalf("render exited %d, want 0 or %d: %s", res.code, exitFailed, res.stderr)
		}
		return res
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	res.objects = map[string]map[string]any{}
	for _, o := range list.Items {
		kind, _ := o["kind"].(string)
		if kind == "ServiceMonitor" || kind == "PrometheusRule" {
			// The fake clientset has no dynamic client, so the monitoring
			// controller does not run; its objects are pinned by the
			// monitoring tests instead.
			continue
		}
		md, _ := o["metadata"].(map[string]any)
		res.objects[kind+"/"+fmt.Sprint(md["name"])] = normalize(t, o)
	}
	return res
}

// dualController is a running Manager on fake clientsets.
type dualController struct {
	kube   *kubefake.Clientset
	ogx    *ogxfake.Clientset
	server *ogxv1beta1.OGXServer
	stop   func()
}

// runController starts a Manager whose caches hold the case's objects, as
// the API server would store them (schema defaults applied).
func (c *dualCase) runController(t *testing.T) *dualController {
	t.Helper()
	s := c.server.DeepCopy()
	ogxv1beta1.ApplySchemaDefaults(s)
	var objs []runtime.Object
	for _, cm := range c.configMaps {
		objs = append(objs, cm.DeepCopy())
	}
	for _, sec := range c.secrets {
		objs = append(objs, sec.DeepCopy())
	}
	if len(c.overrides) > 0 {
		data, err := yaml.Marshal(c.overrides)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: render.OperatorConfigMapName, Namespace: c.operatorNamespace},
			Data: map[string]string{render.ImageOverridesKey: string(data)}})
	}
	objs = append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: render.HashKeySecretName, Namespace: c.operatorNamespace},
		Data: map[string][]byte{render.HashKeyDataKey: []byte(dualHashKey)}})
	kube := kubefake.NewClientset(objs...)
	var served []*metav1.APIResourceList
	if c.monitoring {
		served = append(served, &metav1.APIResourceList{GroupVersion: "monitoring.coreos.com/v1",
			APIResources: []metav1.APIResource{{Name: "servicemonitors"}, {Name: "prometheusrules"}}})
	}
	if c.openShift {
		served = append(served, &metav1.APIResourceList{GroupVersion: "security.openshift.io/v1",
			APIResources: []metav1.APIResource{{Name: "securitycontextconstraints"}}})
	}
	kube.Discovery().(*fakediscovery.FakeDiscovery).Resources = served
	ogx := ogxfake.NewSimpleClientset(s)
	m, err := controller.NewManager(kube, ogx, base.Options{
		OperatorNamespace: c.operatorNamespace, OperatorVersion: "v0.0.0-test", Identity: "dualpath", ServerAnyUID: c.anyUID,
		Distributions:    resolve.NewDistributionTable(func(string) string { return "" }),
		CacheSyncTimeout: dualTimeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Start(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); m.Run(ctx) }()
	return &dualController{kube: kube, ogx: ogx, server: s, stop: func() { cancel(); <-done }}
}

// waitMessage waits until a status condition of the server reports want,
// and returns the conditions of that status.
func (d *dualController) waitMessage(t *testing.T, want string) []metav1.Condition {
	t.Helper()
	var last []metav1.Condition
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, dualTimeout, true, func(ctx context.Context) (bool, error) {
		s, err := d.ogx.OgxV1beta1().OGXServers(d.server.Namespace).Get(ctx, d.server.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = s.Status.Conditions
		for _, c := range last {
			if strings.Contains(c.Message, want) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the controllers never reported %q; conditions: %+v", want, last)
	}
	return last
}

// waitChildren waits until the controllers' children equal render's.
func (d *dualController) waitChildren(t *testing.T, c *dualCase, want map[string]map[string]any) {
	t.Helper()
	var diff string
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, dualTimeout, true, func(ctx context.Context) (bool, error) {
		got, err := d.children(ctx, t)
		if err != nil {
			return false, err
		}
		handedOver(want, got)
		diff = cmp.Diff(want, got)
		return diff == "", nil
	})
	if err != nil {
		s, _ := d.ogx.OgxV1beta1().OGXServers(d.server.Namespace).Get(context.Background(), d.server.Name, metav1.GetOptions{})
		var conds []metav1.Condition
		if s != nil {
			conds = s.Status.Conditions
		}
		t.Fatalf("the controllers' children differ from render's (-render +controller):\n%s\nconditions: %+v", diff, conds)
	}
}

// handedOver drops the spec.replicas the deployment controller sets once,
// when it creates a Deployment an HPA scales, to the HPA's minReplicas
// (docs/children.md, HPA hand-over): render prints the apply that follows,
// without the field. Any other value is left to fail the comparison.
func handedOver(want, got map[string]map[string]any) {
	for key, w := range want {
		hpa, ok := want["HorizontalPodAutoscaler/"+fmt.Sprint(w["metadata"].(map[string]any)["name"])+"-hpa"]
		if !strings.HasPrefix(key, "Deployment/") || !ok {
			continue
		}
		wspec, _ := w["spec"].(map[string]any)
		g, _ := got[key]["spec"].(map[string]any)
		if _, set := wspec["replicas"]; set || g == nil {
			continue
		}
		minReplicas, ok := hpa["spec"].(map[string]any)["minReplicas"]
		if !ok {
			minReplicas = int64(1)
		}
		if g["replicas"] == minReplicas {
			delete(g, "replicas")
		}
	}
}

// childKinds are the kinds of the children the fake clientset holds.
var childKinds = []struct {
	kind string
	gvk  schema.GroupVersionKind
	list func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error)
}{
	{"ConfigMap", corev1.SchemeGroupVersion.WithKind("ConfigMap"), func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.CoreV1().ConfigMaps(ns).List(ctx, o)
	}},
	{"ServiceAccount", corev1.SchemeGroupVersion.WithKind("ServiceAccount"), func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.CoreV1().ServiceAccounts(ns).List(ctx, o)
	}},
	{"RoleBinding", schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.RbacV1().RoleBindings(ns).List(ctx, o)
	}},
	{"PersistentVolumeClaim", corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.CoreV1().PersistentVolumeClaims(ns).List(ctx, o)
	}},
	{"Service", corev1.SchemeGroupVersion.WithKind("Service"), func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.CoreV1().Services(ns).List(ctx, o)
	}},
	{"Deployment", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.AppsV1().Deployments(ns).List(ctx, o)
	}},
	{"HorizontalPodAutoscaler", schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.AutoscalingV2().HorizontalPodAutoscalers(ns).List(ctx, o)
	}},
	{"PodDisruptionBudget", schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.PolicyV1().PodDisruptionBudgets(ns).List(ctx, o)
	}},
	{"NetworkPolicy", schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.NetworkingV1().NetworkPolicies(ns).List(ctx, o)
	}},
	{"Ingress", schema.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, func(ctx context.Context, k *kubefake.Clientset, ns string, o metav1.ListOptions) (runtime.Object, error) {
		return k.NetworkingV1().Ingresses(ns).List(ctx, o)
	}},
}

// children lists the objects the controllers manage in the namespace.
func (d *dualController) children(ctx context.Context, t *testing.T) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	opts := metav1.ListOptions{LabelSelector: render.LabelManagedBy + "=" + render.ManagedByValue}
	for _, k := range childKinds {
		list, err := k.list(ctx, d.kube, d.server.Namespace, opts)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		var items struct{ Items []map[string]any }
		if err := json.Unmarshal(b, &items); err != nil {
			return nil, err
		}
		for _, it := range items.Items {
			it["apiVersion"], it["kind"] = k.gvk.GroupVersion().String(), k.kind
			md, _ := it["metadata"].(map[string]any)
			out[k.kind+"/"+fmt.Sprint(md["name"])] = normalize(t, it)
		}
	}
	return out, nil
}

// normalize decodes an object into its typed form and back, so both paths
// print the same zero values, and drops what the API server owns.
func normalize(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var meta metav1.TypeMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	typed, err := scheme.Scheme.New(meta.GroupVersionKind())
	if err != nil {
		t.Fatalf("%s: %v", meta.GroupVersionKind(), err)
	}
	if err := json.Unmarshal(b, typed); err != nil {
		t.Fatal(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = meta.APIVersion, meta.Kind
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "uid", "managedFields", "creationTimestamp", "generation", "selfLink"} {
			delete(md, k)
		}
	}
	return m
}
