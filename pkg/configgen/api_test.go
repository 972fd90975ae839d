package configgen

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

func TestModeOfAndGate(t *testing.T) {
	if ModeOf(nil) != ModeInactive {
		t.Fatal("nil spec is not inactive")
	}
	tls := &v1beta1.OGXServerSpec{Network: &v1beta1.NetworkSpec{TLS: &v1beta1.ServerTLSSpec{SecretName: "s"}}}
	if ModeOf(tls) != ModeGenerated {
		t.Fatal("network.tls does not trigger generation (D4)")
	}
	over := &v1beta1.OGXServerSpec{OverrideConfig: &v1beta1.ConfigMapKeyRef{Name: "a", Key: "b"}}
	if err := ValidateSpec(over); !errors.Is(err, ErrOverrideMode) {
		t.Fatalf("override: %v", err)
	}
	if err := ValidateSpec(&v1beta1.OGXServerSpec{}); !errors.Is(err, ErrInactiveMode) {
		t.Fatalf("inactive: %v", err)
	}
	if _, err := Generate(&v1beta1.OGXServerSpec{DisabledAPIs: []v1beta1.DisabledAPI{}}, nil); !errors.Is(err, ErrInactiveMode) {
		t.Fatalf("empty disabledAPIs is a trigger: %v", err)
	}
}

// TestValidateSpecFieldPaths checks that every spec problem is reported at
// once, with field paths for admission, before any base is needed.
func TestValidateSpecFieldPaths(t *testing.T) {
	in, err := goldenInput(t, filepath.Join("testdata", "e18c-err-required-secret"))
	if err != nil {
		t.Fatal(err)
	}
	err = ValidateSpec(&in.server.Spec)
	var se *SpecError
	if !errors.As(err, &se) || len(se.Errs) != 2 {
		t.Fatalf("want a SpecError with 2 problems, got %v", err)
	}
	if se.Errs[0].Field != "spec.providers.vectorIo.remote.pgvector[0].password" ||
		se.Errs[1].Field != "spec.providers.toolRuntime.remote.tavilySearch[0].apiKey" {
		t.Fatalf("paths %s, %s", se.Errs[0].Field, se.Errs[1].Field)
	}
}

func TestStorageTypeUnsupported(t *testing.T) {
	spec := &v1beta1.OGXServerSpec{Storage: &v1beta1.StateStorageSpec{KV: &v1beta1.KVStorageSpec{Type: "etcd"}}}
	if err := ValidateSpec(spec); err == nil || !strings.Contains(err.Error(), `storage.kv.type "etcd" is not supported`) {
		t.Fatalf("got %v", err)
	}
}

// TestGenerateDoesNotModifySpec runs the richest case and compares the
// spec before and after.
func TestGenerateDoesNotModifySpec(t *testing.T) {
	in, err := goldenInput(t, filepath.Join("testdata", "x06-all-apis-populated"))
	if err != nil {
		t.Fatal(err)
	}
	before := in.server.DeepCopy()
	res, err := Generate(&in.server.Spec, in.base)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, in.server) {
		t.Fatal("Generate modified the spec")
	}
	if len(res.Env) != len(res.SecretEnv) || res.Env[0].ValueFrom.SecretKeyRef.Optional != nil {
		t.Fatal("env entries are not plain secretKeyRefs")
	}
}

func TestBaseFromConfigMap(t *testing.T) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "base"},
		Data:       map[string]string{"config.yaml": "version: 2\n"},
		BinaryData: map[string][]byte{"bin.yaml": []byte("version: 3\n"), "config.yaml": []byte("ignored")},
	}
	if b, ok := BaseFromConfigMap(cm, "config.yaml"); !ok || string(b) != "version: 2\n" {
		t.Fatalf("data: %q %v", b, ok)
	}
	if b, ok := BaseFromConfigMap(cm, "bin.yaml"); !ok || string(b) != "version: 3\n" {
		t.Fatalf("binaryData: %q %v", b, ok)
	}
	if _, ok := BaseFromConfigMap(cm, "run.yaml"); ok {
		t.Fatalf("missing key found")
	}
}

func TestConfigHash(t *testing.T) {
	if got := ConfigHash([]byte("")); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatal(got)
	}
}

func TestParseServerRejects(t *testing.T) {
	for doc, want := range map[string]string{
		"apiVersion: ogx.io/v1beta1\nkind: OGXServer\nspec: {distribution: {name: x}, provders: {}}\n": "unknown field",
		"apiVersion: llamastack.io/v1alpha1\nkind: LlamaStackDistribution\n":                           "want ogx.io/v1beta1 OGXServer",
		"[1, 2": "invalid OGXServer",
	} {
		if _, err := ParseServer([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", doc, err, want)
		}
	}
}
