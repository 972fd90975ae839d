package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/configgen"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

var update = flag.Bool("update", false, "rewrite the want.* files of testdata/render")

const renderTestdata = "testdata/render"

// Files of a render golden case directory.
const (
	caseCmd    = "cmd"   // the arguments, one per line
	caseStdin  = "stdin" // optional standard input
	wantStdout = "want.stdout"
	wantStderr = "want.stderr"
	wantExit   = "want.exit"
)

type renderResult struct {
	code           int
	stdout, stderr []byte
}

// runRenderIn runs `render` with dir as working directory.
func runRenderIn(t *testing.T, dir string, args []string, stdin []byte) renderResult {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
	}()
	var out, errb bytes.Buffer
	code := runRender(args, bytes.NewReader(stdin), &out, &errb)
	return renderResult{code: code, stdout: out.Bytes(), stderr: errb.Bytes()}
}

func readCase(t *testing.T, dir string) (args []string, stdin []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, caseCmd))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		args = append(args, l)
	}
	stdin, err = os.ReadFile(filepath.Join(dir, caseStdin))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return args, stdin
}

// TestRenderGolden runs every case of testdata/render and compares stdout,
// stderr and the exit code with the want.* files (-update rewrites them). It
// also checks the stream contracts of docs/cli.md, render: nothing on stdout
// on error, every stderr line is a warning or an error, and a second run gives
// byte-identical stdout.
func TestRenderGolden(t *testing.T) {
	entries, err := os.ReadDir(renderTestdata)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(renderTestdata, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			args, stdin := readCase(t, dir)
			got := runRenderIn(t, dir, args, stdin)

			if got.code != exitOK && len(got.stdout) > 0 {
				t.Errorf("exit %d with output on stdout:\n%s", got.code, got.stdout)
			}
			for _, l := range strings.Split(strings.TrimRight(string(got.stderr), "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "error: ") {
					t.Errorf("stderr line is neither a warning nor an error: %q", l)
				}
			}
			if got.code == exitOK {
				again := runRenderIn(t, dir, args, stdin)
				if !bytes.Equal(got.stdout, again.stdout) || !bytes.Equal(got.stderr, again.stderr) {
					t.Errorf("second run differs:\n%s", cmp.Diff(string(got.stdout), string(again.stdout)))
				}
			}

			files := map[string][]byte{
				wantStdout: got.stdout,
				wantStderr: got.stderr,
				wantExit:   []byte(fmt.Sprintf("%d\n", got.code)),
			}
			for name, data := range files {
				path := filepath.Join(dir, name)
				if *update {
					if err := os.WriteFile(path, data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create)", err)
				}
				if !bytes.Equal(want, data) {
					t.Errorf("%s differs (-want +got):\n%s", name, cmp.Diff(string(want), string(data)))
				}
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d render cases", n)
	}
}

// TestRenderExitCodes pins the exit code of each class of failure, so that
// a golden update cannot silently change them.
func TestRenderExitCodes(t *testing.T) {
	tests := map[string]struct {
		code   int
		stderr string
	}{
		"inactive-starter":        {exitOK, ""},
		"override-config":         {exitOK, ""},
		"override-config-missing": {exitOK, "warning: annotation configmap.hash/user-config omitted"},
		"generated-base-in-input": {exitOK, ""},
		"tls-all-present":         {exitOK, ""},
		"tls-missing-secret":      {exitOK, "warning: annotation secret.hash/tls omitted"},
		"tls-unlabelled-secret":   {exitFailed, "secret default/secure-tls for env OGX_TLS_CERTFILE: exists but lacks label ogx.io/watch=true (referenced by spec.network.tls.secretName)"},
		"spec-error-and-no-base":  {exitFailed, "error: env var name OGX_METRICS_PORT is reserved"},
		"only-config":             {exitOK, ""},
		"output-json":             {exitOK, ""},
		"stdin-image-override":    {exitOK, ""},
		"volume-defaults":         {exitOK, ""},
		"validate-accepts":        {exitOK, ""},
		"only-config-inactive":    {exitFailed, "error: nothing to generate"},
		"only-config-override":    {exitFailed, "overrideConfig"},
		"generation-error":        {exitFailed, "missing required 'version' field"},
		"no-base":                 {exitFailed, "error: no base config: pass --base, include ConfigMap nb-base in the input, or pass --fetch-base"},
		"unknown-distribution":    {exitFailed, "Distribution name not supported"},
		"invalid-volume":          {exitFailed, `workload.overrides.volumes[0]: name "ogx-storage" is reserved`},
		"unlabelled-base":         {exitFailed, "exists but lacks label ogx.io/watch=true (referenced by spec.baseConfig)"},
		"hash-collision":          {exitFailed, "hash collision"},
		"validate-rejects":        {exitValidation, "error: spec.distribution.name"},
		"validate-schema":         {exitValidation, "error: spec.workload.autoscaling: Invalid value: maxReplicas must be greater than or equal to minReplicas"},
		"llsd-input":              {exitUsage, "use kubectl ogx migrate first"},
		"two-servers":             {exitUsage, "found 2 OGXServers"},
		"bad-yaml":                {exitUsage, "error: "},
		"unsupported-kind":        {exitUsage, "unsupported kind \"Deployment\""},
		"usage-errors":            {exitUsage, "--only must be all or config"},
		"missing-file":            {exitUsage, "does-not-exist.yaml"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(renderTestdata, name)
			args, stdin := readCase(t, dir)
			got := runRenderIn(t, dir, args, stdin)
			if got.code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", got.code, tc.code, got.stderr)
			}
			if !strings.Contains(string(got.stderr), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, got.stderr)
			}
			if tc.code == exitOK && tc.stderr == "" && len(got.stderr) > 0 {
				t.Errorf("unexpected stderr:\n%s", got.stderr)
			}
		})
	}
}

// TestRenderValidateListsEveryError checks the --validate output: one
// `error:` line per admission error.
func TestRenderValidateListsEveryError(t *testing.T) {
	dir := filepath.Join(renderTestdata, "validate-rejects")
	args, stdin := readCase(t, dir)
	got := runRenderIn(t, dir, args, stdin)
	lines := strings.Split(strings.TrimSpace(string(got.stderr)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "spec.distribution.name") || !strings.Contains(lines[1], `duplicate provider ID "dup"`) {
		t.Errorf("want two error lines (distribution, duplicate ID), got:\n%s", got.stderr)
	}
}

// TestRenderAnnotations checks the rollout annotations of the Deployment:
// present when every hashed object is in the input, omitted (with a
// warning) otherwise.
func TestRenderAnnotations(t *testing.T) {
	ann := templateAnnotations(t, "tls-all-present")
	for _, k := range []string{render.AnnotationUserConfigHash, render.AnnotationCABundleHash, render.AnnotationSecretHash,
		render.AnnotationServerTLSHash, render.AnnotationIdentityHash} {
		if len(ann[k]) != 16 {
			t.Errorf("tls-all-present: annotation %s = %q, want a 16-hex hash", k, ann[k])
		}
	}
	if want := resolve.PairHash([]byte("server certificate bytes"), []byte("server key bytes")); ann[render.AnnotationServerTLSHash] != want {
		t.Errorf("secret.hash/tls = %s, want %s", ann[render.AnnotationServerTLSHash], want)
	}
	if want := resolve.PairHash([]byte("client certificate bytes"), []byte("client key bytes")); ann[render.AnnotationIdentityHash] != want {
		t.Errorf("secret.hash/identity = %s, want %s", ann[render.AnnotationIdentityHash], want)
	}
	// The case passes --hash-key-file hash.key.
	if want := resolve.SecretHash([]byte("render-test-key"), []resolve.SecretHashEntry{{Env: "OGX_REMOTE_VLLM_API_TOKEN", Secret: "vllm-token", Key: "token", Value: []byte("t0ken")}}); ann[render.AnnotationSecretHash] != want {
		t.Errorf("secret.hash/referenced = %s, want %s", ann[render.AnnotationSecretHash], want)
	}

	ann = templateAnnotations(t, "tls-missing-secret")
	for _, k := range []string{render.AnnotationSecretHash, render.AnnotationServerTLSHash} {
		if v, ok := ann[k]; ok {
			t.Errorf("tls-missing-secret: annotation %s = %q, want it omitted", k, v)
		}
	}
	for _, k := range []string{render.AnnotationUserConfigHash, render.AnnotationCABundleHash, render.AnnotationIdentityHash} {
		if len(ann[k]) != 16 {
			t.Errorf("tls-missing-secret: annotation %s = %q, want a 16-hex hash", k, ann[k])
		}
	}
	dir := filepath.Join(renderTestdata, "tls-missing-secret")
	args, stdin := readCase(t, dir)
	got := runRenderIn(t, dir, args, stdin)
	for _, w := range []string{
		"warning: annotation secret.hash/referenced omitted: Secret default/vllm-token is not in the input",
		"warning: annotation secret.hash/tls omitted: Secret default/secure-tls of spec.network.tls is not in the input",
	} {
		if !strings.Contains(string(got.stderr), w+"\n") {
			t.Errorf("stderr lacks %q:\n%s", w, got.stderr)
		}
	}
}

// renderJSON runs a case with -o json and returns the List items by kind.
func renderJSON(t *testing.T, name string, extra ...string) map[string]json.RawMessage {
	t.Helper()
	dir := filepath.Join(renderTestdata, name)
	args, stdin := readCase(t, dir)
	args = append(append(args, "-o", "json"), extra...)
	got := runRenderIn(t, dir, args, stdin)
	if got.code != exitOK {
		t.Fatalf("%s: exit %d: %s", name, got.code, got.stderr)
	}
	var list struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(got.stdout, &list); err != nil {
		t.Fatal(err)
	}
	if list.APIVersion != "v1" || list.Kind != "List" {
		t.Fatalf("not a v1 List: %s %s", list.APIVersion, list.Kind)
	}
	out := map[string]json.RawMessage{}
	for _, it := range list.Items {
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(it, &meta); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[meta.Kind]; dup && meta.Kind != "ConfigMap" {
			t.Fatalf("two %s objects", meta.Kind)
		}
		out[meta.Kind] = it
	}
	return out
}

type deploymentView struct {
	Spec struct {
		Template struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"template"`
	} `json:"spec"`
}

// templateAnnotations returns the pod template annotations of a case's
// Deployment.
func templateAnnotations(t *testing.T, name string) map[string]string {
	t.Helper()
	var v deploymentView
	if err := json.Unmarshal(renderJSON(t, name)["Deployment"], &v); err != nil {
		t.Fatal(err)
	}
	return v.Spec.Template.Metadata.Annotations
}

// TestRenderKindOrder checks the document order of docs/cli.md, Output, on the
// case that prints every kind.
func TestRenderKindOrder(t *testing.T) {
	dir := filepath.Join(renderTestdata, "generated-base-in-input")
	args, stdin := readCase(t, dir)
	got := runRenderIn(t, dir, args, stdin)
	var kinds []string
	for _, doc := range strings.Split(string(got.stdout), "\n---\n") {
		for _, l := range strings.Split(doc, "\n") {
			if k, ok := strings.CutPrefix(l, "kind: "); ok {
				kinds = append(kinds, k)
			}
		}
	}
	want := []string{"ConfigMap", "ServiceAccount", "RoleBinding", "PersistentVolumeClaim", "Service", "Deployment",
		"HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Ingress"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	for _, banned := range []string{"status:", "resourceVersion:", "uid: 6f1d", "managedFields:", "creationTimestamp:"} {
		for _, l := range strings.Split(string(got.stdout), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), banned) && !strings.Contains(l, "- apiVersion") {
				if banned == "uid: 6f1d" && strings.HasPrefix(l, "    uid:") {
					continue // ownerReferences carry the owner's UID
				}
				t.Errorf("output has %q: %q", banned, l)
			}
		}
	}
	if !strings.Contains(string(got.stdout), "ownerReferences:") {
		t.Error("input has metadata.uid but the output has no ownerReferences")
	}
	inactive := runRenderIn(t, filepath.Join(renderTestdata, "inactive-starter"), []string{"-f", "input.yaml"}, nil)
	if strings.Contains(string(inactive.stdout), "ownerReferences") {
		t.Error("input has no metadata.uid but the output has ownerReferences")
	}
}

// consistencyCase assembles render.Inputs independently of the CLI, from
// configgen and the render hash helpers, for one case.
type consistencyCase struct {
	name  string
	base  func(t *testing.T) []byte
	build func(t *testing.T, s *ogxv1beta1.OGXServer, g *configgen.Result) render.Inputs
}

// TestRenderConsistency guards against the CLI assembling render.Inputs
// differently from the controllers: the Deployment and the generated
// ConfigMap it prints must equal what render.Deployment and
// render.GeneratedConfigMap return for Inputs built here by hand, and the
// config hash annotation must be configgen's ContentHash.
func TestRenderConsistency(t *testing.T) {
	table := resolve.NewDistributionTable(func(string) string { return "" })
	readBase := func(path string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile(filepath.Join(renderTestdata, path))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	generated := func(s *ogxv1beta1.OGXServer, g *configgen.Result) render.RuntimeConfig {
		return render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeGenerated, ConfigMapName: s.Name + "-config-" + g.ContentHash,
			Key: "config.yaml", Hash: g.ContentHash, SQLiteBackend: g.SQLiteBackend}
	}
	image := func(t *testing.T, s *ogxv1beta1.OGXServer) string {
		img, err := table.ResolveImage(&s.Spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	cases := []consistencyCase{
		{
			name: "generated-base-in-input",
			base: func(t *testing.T) []byte {
				// The same bytes as the lab-base ConfigMap of the input.
				cm := inputConfigMap(t, "generated-base-in-input", "lab-base")
				return []byte(cm.Data["config.yaml"])
			},
			build: func(t *testing.T, s *ogxv1beta1.OGXServer, g *configgen.Result) render.Inputs {
				return render.Inputs{
					Image:         image(t, s),
					RuntimeConfig: generated(s, g),
					SecretEnv:     g.SecretEnv,
					// The case passes --hash-key-file hash.key.
					SecretHash: resolve.SecretHash([]byte("render-test-key"), []resolve.SecretHashEntry{
						{Env: "OGX_REMOTE_OPENAI_API_KEY", Secret: "llm-credentials", Key: "openai", Value: []byte("sk-openai-1")},
						{Env: "OGX_REMOTE_VLLM_API_TOKEN", Secret: "llm-credentials", Key: "vllm", Value: []byte("vllm-token-1")},
					}),
					PVCName:                 "lab-pvc",
					OperatorNamespace:       "ogx-controller",
					OpenShiftSecurityServed: true,
					ServerAnyUID:            true,
				}
			},
		},
		{
			name: "tls-all-present",
			base: readBase("base.yaml"),
			build: func(t *testing.T, s *ogxv1beta1.OGXServer, g *configgen.Result) render.Inputs {
				ca := inputConfigMap(t, "tls-all-present", "corp-ca")
				odh := inputConfigMap(t, "tls-all-present", "odh-trusted-ca-bundle")
				sources := append([]resolve.CASource{{Key: "ca.crt", Data: ca.Data["ca.crt"], Explicit: true}},
					resolve.TrustedCABundleSources(odh.Data)...)
				bundle, count, _, err := resolve.AssembleCABundle(sources)
				if err != nil || count != 2 {
					t.Fatalf("bundle: %d certificates, %v", count, err)
				}
				return render.Inputs{
					Image:         image(t, s),
					RuntimeConfig: generated(s, g),
					CABundleHash:  contenthash.H16([]byte(bundle)),
					SecretEnv:     g.SecretEnv,
					SecretHash: resolve.SecretHash([]byte("render-test-key"), []resolve.SecretHashEntry{
						{Env: "OGX_REMOTE_VLLM_API_TOKEN", Secret: "vllm-token", Key: "token", Value: []byte("t0ken")},
					}),
					ServerTLSHash:     resolve.PairHash([]byte("server certificate bytes"), []byte("server key bytes")),
					IdentityHash:      resolve.PairHash([]byte("client certificate bytes"), []byte("client key bytes")),
					PVCName:           "secure-pvc",
					OperatorNamespace: "ogx-system",
				}
			},
		},
		{
			name: "override-config",
			build: func(t *testing.T, s *ogxv1beta1.OGXServer, _ *configgen.Result) render.Inputs {
				cm := inputConfigMap(t, "override-config", "custom-config")
				return render.Inputs{
					Image: image(t, s),
					RuntimeConfig: render.RuntimeConfig{Mode: ogxv1beta1.ConfigModeOverride, ConfigMapName: "custom-config",
						Key: "run.yaml", Hash: contenthash.H16([]byte(cm.Data["run.yaml"]))},
					PVCName:           "custom-pvc",
					OperatorNamespace: "ogx-system",
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(renderTestdata, tc.name)
			args, _ := readCase(t, dir)
			s := inputServer(t, tc.name)
			if s.Namespace == "" {
				s.Namespace = "default"
				for i := range args {
					if args[i] == "--namespace" {
						s.Namespace = args[i+1]
					}
				}
			}
			ogxv1beta1.ApplySchemaDefaults(s)
			var g *configgen.Result
			if tc.base != nil {
				var err error
				if g, err = configgen.Generate(&s.Spec, tc.base(t)); err != nil {
					t.Fatal(err)
				}
			}
			in := tc.build(t, s, g)
			want, err := render.Deployment(s, &in)
			if err != nil {
				t.Fatal(err)
			}
			items := renderJSON(t, tc.name)
			compareObject(t, "Deployment", want, items["Deployment"])

			var d deploymentView
			if err := json.Unmarshal(items["Deployment"], &d); err != nil {
				t.Fatal(err)
			}
			gotHash := d.Spec.Template.Metadata.Annotations[render.AnnotationUserConfigHash]
			if g != nil {
				if gotHash != g.ContentHash {
					t.Errorf("configmap.hash/user-config = %s, configgen ContentHash = %s", gotHash, g.ContentHash)
				}
				sum := sha256.Sum256(g.ConfigYAML)
				if gotHash != hex.EncodeToString(sum[:8]) {
					t.Errorf("configmap.hash/user-config %s is not h16 of the config", gotHash)
				}
				cm := render.GeneratedConfigMap(s, in.RuntimeConfig.ConfigMapName, string(g.ConfigYAML))
				compareObject(t, "ConfigMap", cm, firstConfigMap(t, tc.name))
			} else if gotHash != in.RuntimeConfig.Hash {
				t.Errorf("configmap.hash/user-config = %s, want %s", gotHash, in.RuntimeConfig.Hash)
			}
			compareObject(t, "Service", render.Service(s, &in), items["Service"])
			compareObject(t, "ServiceAccount", render.ServiceAccount(s, &in), items["ServiceAccount"])
			if render.WantNetworkPolicy(s) {
				compareObject(t, "NetworkPolicy", render.NetworkPolicy(s, &in), items["NetworkPolicy"])
			} else if _, ok := items["NetworkPolicy"]; ok {
				t.Error("NetworkPolicy printed although policy.enabled is false")
			}
		})
	}
}

func compareObject(t *testing.T, kind string, want any, got json.RawMessage) {
	t.Helper()
	w, err := cleanObject(want)
	if err != nil {
		t.Fatal(err)
	}
	var g map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s differs from the render function's (-want +got):\n%s", kind, diff)
	}
}

// firstConfigMap returns the first ConfigMap of a case's -o json output,
// which is the generated one.
func firstConfigMap(t *testing.T, name string) json.RawMessage {
	t.Helper()
	dir := filepath.Join(renderTestdata, name)
	args, stdin := readCase(t, dir)
	got := runRenderIn(t, dir, append(args, "-o", "json"), stdin)
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(got.stdout, &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("%v: %s", err, got.stdout)
	}
	return list.Items[0]
}

func inputDocs(t *testing.T, name string) []renderDocument {
	t.Helper()
	docs, err := readRenderDocuments([]string{filepath.Join(renderTestdata, name, "input.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func inputServer(t *testing.T, name string) *ogxv1beta1.OGXServer {
	t.Helper()
	for _, d := range inputDocs(t, name) {
		if d.obj.GetKind() == "OGXServer" {
			s, err := configgen.ParseServer(d.json)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	t.Fatalf("%s: no OGXServer", name)
	return nil
}

func inputConfigMap(t *testing.T, name, cmName string) *corev1.ConfigMap {
	t.Helper()
	for _, d := range inputDocs(t, name) {
		if d.obj.GetKind() == "ConfigMap" && d.obj.GetName() == cmName {
			cm := &corev1.ConfigMap{}
			if err := json.Unmarshal(d.json, cm); err != nil {
				t.Fatal(err)
			}
			return cm
		}
	}
	t.Fatalf("%s: no ConfigMap %s", name, cmName)
	return nil
}

// TestRenderOnlyConfigMatchesConfiggenGolden runs `render --only=config` on
// every configgen golden case (docs/config-generation.md, Golden tests): exit
// 0 with exactly the bytes Generate returns for the schema-defaulted spec, or
// exit 1 with the want-err text.
func TestRenderOnlyConfigMatchesConfiggenGolden(t *testing.T) {
	root := filepath.Join("..", "..", "pkg", "configgen", "testdata")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty-base.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		cr := filepath.Join(dir, "cr.yaml")
		if _, err := os.Stat(cr); err != nil {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) {
			absCR, _ := filepath.Abs(cr)
			base := filepath.Join(dir, "base.yaml")
			if _, err := os.Stat(base); err != nil {
				base = empty
			}
			absBase, _ := filepath.Abs(base)
			got := runRenderIn(t, ".", []string{"-f", absCR, "--base", absBase, "--only=config"}, nil)

			wantErr, errFile := os.ReadFile(filepath.Join(dir, "want-err"))
			if errFile == nil {
				if got.code != exitFailed || !strings.Contains(string(got.stderr), strings.TrimSpace(string(wantErr))) {
					t.Errorf("exit %d, stderr %q; want exit 1 with %q", got.code, got.stderr, strings.TrimSpace(string(wantErr)))
				}
				return
			}
			if got.code != exitOK {
				t.Fatalf("exit %d: %s", got.code, got.stderr)
			}
			s := inputServerFile(t, cr)
			ogxv1beta1.ApplySchemaDefaults(s)
			baseBytes, _ := os.ReadFile(base)
			res, err := configgen.Generate(&s.Spec, baseBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.stdout, res.ConfigYAML) {
				t.Errorf("render --only=config differs from Generate:\n%s", cmp.Diff(string(res.ConfigYAML), string(got.stdout)))
			}
			// The schema defaults must not change what the golden case
			// (which generates from the undefaulted spec) expects.
			raw := inputServerFile(t, cr)
			rawRes, err := configgen.Generate(&raw.Spec, baseBytes)
			if err == nil && !bytes.Equal(rawRes.ConfigYAML, res.ConfigYAML) {
				t.Errorf("schema defaults change the generated config:\n%s", cmp.Diff(string(rawRes.ConfigYAML), string(res.ConfigYAML)))
			}
		})
	}
	if n < 30 {
		t.Fatalf("only %d configgen cases found", n)
	}
}

func inputServerFile(t *testing.T, path string) *ogxv1beta1.OGXServer {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := configgen.ParseServer(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRenderFetchBase reads the base config from the OCI labels of an image
// served by a loopback registry: the output equals a render with the same
// base passed as --base.
func TestRenderFetchBase(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(renderTestdata, "base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := json.Marshal(map[string]any{"config": map[string]any{"Labels": map[string]string{
		"com.ogx.distribution.default-config": "config.yaml",
		"com.ogx.config.config.yaml":          base64.StdEncoding.EncodeToString(base),
	}}})
	blobDigest := digestOf(blob)
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": blobDigest, "size": len(blob)},
		"layers":        []any{},
	})
	manifestDigest := digestOf(manifest)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v2/", "/v2":
			w.WriteHeader(http.StatusOK)
		case "/v2/ogx/dist/manifests/v1", "/v2/ogx/dist/manifests/" + manifestDigest:
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", manifestDigest)
			_, _ = w.Write(manifest)
		case "/v2/ogx/dist/blobs/" + blobDigest:
			_, _ = w.Write(blob)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	image := strings.TrimPrefix(srv.URL, "http://") + "/ogx/dist:v1"

	dir := t.TempDir()
	input := fmt.Sprintf(`apiVersion: ogx.io/v1beta1
kind: OGXServer
metadata:
  name: fetched
spec:
  distribution:
    image: %s
  storage: {}
`, image)
	if err := os.WriteFile(filepath.Join(dir, "input.yaml"), []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "base.yaml"), base, 0o644); err != nil {
		t.Fatal(err)
	}
	fetched := runRenderIn(t, dir, []string{"-f", "input.yaml", "--fetch-base"}, nil)
	if fetched.code != exitOK {
		t.Fatalf("exit %d: %s", fetched.code, fetched.stderr)
	}
	local := runRenderIn(t, dir, []string{"-f", "input.yaml", "--base", "base.yaml"}, nil)
	// The same config; --fetch-base also pins the tag to the digest the
	// labels came from, as the controller does.
	want := strings.ReplaceAll(string(local.stdout), "image: "+image+"\n", "image: "+image+"@"+manifestDigest+"\n")
	if string(fetched.stdout) != want || want == string(local.stdout) {
		t.Errorf("--fetch-base output differs from --base with the image pinned:\n%s", cmp.Diff(want, string(fetched.stdout)))
	}

	// spec.baseConfig naming a ConfigMap the input lacks: the labels stand
	// in, and the warning says so in a whole sentence.
	withRef := strings.Replace(input, "  storage: {}\n", "  storage: {}\n  baseConfig:\n    name: base\n    key: config.yaml\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "ref.yaml"), []byte(withRef), 0o644); err != nil {
		t.Fatal(err)
	}
	standIn := runRenderIn(t, dir, []string{"-f", "ref.yaml", "--fetch-base", "--only=config"}, nil)
	wantWarning := "warning: ConfigMap default/base of spec.baseConfig is not in the input; " +
		"using the image's OCI labels instead (the controller would report the ConfigMap as not found)\n"
	if standIn.code != exitOK || !strings.Contains(string(standIn.stderr), wantWarning) {
		t.Errorf("exit %d, stderr %q; want the warning %q", standIn.code, standIn.stderr, wantWarning)
	}

	// A registry failure is E7 with exit 1.
	srv.Close()
	failed := runRenderIn(t, dir, []string{"-f", "input.yaml", "--fetch-base", "--only=config"}, nil)
	if failed.code != exitFailed || !strings.Contains(string(failed.stderr), "failed to resolve base config from OCI labels") ||
		!strings.Contains(string(failed.stderr), "Set spec.baseConfig") {
		t.Errorf("exit %d, stderr %s", failed.code, failed.stderr)
	}
	if len(failed.stdout) > 0 {
		t.Errorf("stdout on error: %s", failed.stdout)
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestRenderDeterminismAcrossInputOrder checks that the order of the input
// documents does not change the output.
func TestRenderDeterminismAcrossInputOrder(t *testing.T) {
	src := filepath.Join(renderTestdata, "tls-all-present", "input.yaml")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "\n---\n")
	reversed := make([]string, len(docs))
	for i, d := range docs {
		reversed[len(docs)-1-i] = d
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reversed.yaml"), []byte(strings.Join(reversed, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	absBase, _ := filepath.Abs(filepath.Join(renderTestdata, "base.yaml"))
	absSrc, _ := filepath.Abs(src)
	a := runRenderIn(t, dir, []string{"-f", absSrc, "--base", absBase}, nil)
	r := runRenderIn(t, dir, []string{"-f", "reversed.yaml", "--base", absBase}, nil)
	if a.code != exitOK || r.code != exitOK {
		t.Fatalf("exit %d / %d: %s %s", a.code, r.code, a.stderr, r.stderr)
	}
	if !bytes.Equal(a.stdout, r.stdout) {
		t.Errorf("input order changes the output:\n%s", cmp.Diff(string(a.stdout), string(r.stdout)))
	}
}

// TestRenderDispatch checks the subcommand is wired into main.
func TestRenderDispatch(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch(t.Context(), []string{"render", "--only=bogus", "-f", "x"}, streams{in: strings.NewReader(""), out: &out, err: &errb}); code != exitUsage {
		t.Errorf("dispatch render: exit %d, stderr %s", code, errb.String())
	}
}

// TestRenderUnknownFieldsNamePaths: a misspelt field is reported with its
// full YAML path and the valid name (exit 3), not as the JSON decoder's bare
// key.
func TestRenderUnknownFieldsNamePaths(t *testing.T) {
	in := `apiVersion: ogx.io/v1beta1
kind: OGXServer
metadata: {name: s}
spec:
  distribution: {name: starter}
  workload:
    replica: 2
    overrides:
      env: [{nmae: A, value: "1"}]
`
	var out, stderr bytes.Buffer
	code := runRender([]string{"-f", "-"}, strings.NewReader(in), &out, &stderr)
	for _, want := range []string{
		"error: spec.workload.overrides.env[0].nmae: unknown field (did you mean name?)",
		"error: spec.workload.replica: unknown field (did you mean replicas?)",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if code != exitValidation || out.Len() != 0 {
		t.Errorf("exit %d with %d bytes of output; want %d and none", code, out.Len(), exitValidation)
	}
}

// TestRenderWithoutHashKey: without --hash-key-file the secret.hash/referenced
// value is keyed with nothing, differs from the keyed one, and a warning
// says so.
func TestRenderWithoutHashKey(t *testing.T) {
	dir := filepath.Join(renderTestdata, "tls-all-present")
	args, stdin := readCase(t, dir)
	keyed := runRenderIn(t, dir, args, stdin)
	i := slices.Index(args, "--hash-key-file")
	if i < 0 {
		t.Fatal("the case has no --hash-key-file")
	}
	got := runRenderIn(t, dir, slices.Delete(slices.Clone(args), i, i+2), stdin)
	if got.code != exitOK || !strings.Contains(string(got.stderr), "secret.hash/referenced is keyed with an empty key: pass --hash-key-file") {
		t.Errorf("exit %d, stderr %q: want 0 and the empty-key warning", got.code, got.stderr)
	}
	if strings.Contains(string(keyed.stderr), "empty key") {
		t.Errorf("warning with --hash-key-file: %q", keyed.stderr)
	}
	if string(got.stdout) == string(keyed.stdout) {
		t.Error("the output does not depend on the hash key")
	}
}
