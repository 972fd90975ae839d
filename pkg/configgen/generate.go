package configgen

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/contenthash"
)

// Result is a generated config.yaml and what the controllers need besides the
// bytes (docs/config-generation.md, Pipeline).
type Result struct {
	// ConfigYAML is the serialized config, exactly the data of the generated
	// ConfigMap.
	ConfigYAML []byte
	// ContentHash is h16 of ConfigYAML: 16 lowercase hex characters.
	ContentHash string
	// Env are the Secret-backed variables as secretKeyRef entries, sorted by
	// name (docs/config-generation.md, Secret env vars).
	Env []corev1.EnvVar
	// SecretEnv is Env with the field path of each variable's first
	// reference, in the same order, for the secret.hash/referenced
	// annotation and for error messages.
	SecretEnv []v1beta1.SecretEnvVar
	// ProviderCount counts all providers in the merged map, base included.
	ProviderCount int
	// ResourceCount counts the user models only.
	ResourceCount int
	// ConfigVersion is Atoi(version), or 2 when that fails.
	ConfigVersion int
	// Warnings never fail generation (W1–W4); each is worth one event.
	Warnings []string
	// SQLiteBackend reports that a storage backend of the output is sqlite, so
	// the Deployment sets SQLITE_STORE_DIR (docs/config-generation.md,
	// Storage).
	SQLiteBackend bool
}

// plan is everything derived from the spec alone (step 2 of the pipeline in
// docs/config-generation.md).
type plan struct {
	providers map[string][]any
	entries   []v1beta1.ProviderEntry
	env       []v1beta1.SecretEnvVar
	storage   map[string]any
}

// ValidateSpec runs pipeline steps 1 and 2 without any I/O: the mode gate
// (E1, E2), provider expansion (E13, E14, E18) and the Secret env vars (E15,
// E16). A spec error is a *SpecError carrying field paths. Callers run it
// only in generated mode; in the other modes it returns the gate error.
func ValidateSpec(spec *v1beta1.OGXServerSpec) error {
	_, err := planSpec(spec)
	return err
}

func planSpec(spec *v1beta1.OGXServerSpec) (*plan, error) {
	if err := gate(spec); err != nil {
		return nil, err
	}
	lists, entries, errs := expandProviders(spec)
	var storage map[string]any
	if spec.Storage != nil {
		var serrs field.ErrorList
		storage, serrs = storageBlock(spec.Storage)
		errs = append(errs, serrs...)
	}
	env, envErrs := v1beta1.SecretEnv(spec)
	errs = append(errs, envErrs...)
	if len(errs) > 0 {
		return nil, &SpecError{Errs: errs}
	}
	return &plan{providers: lists, entries: entries, env: env, storage: storage}, nil
}

// Generate runs the pipeline (docs/config-generation.md, Pipeline) on a spec
// and the resolved base config bytes. It is deterministic: equal inputs give
// byte-identical ConfigYAML. It reads no clock, environment or network, and it
// does not modify spec.
func Generate(spec *v1beta1.OGXServerSpec, baseConfig []byte) (*Result, error) {
	p, err := planSpec(spec)
	if err != nil {
		return nil, err
	}
	b, err := parseBase(baseConfig)
	if err != nil {
		return nil, err
	}
	m, err := merge(spec, p, b)
	if err != nil {
		return nil, err
	}
	data, err := marshalConfig(m.out)
	if err != nil {
		return nil, err
	}
	res := &Result{
		ConfigYAML:    data,
		ContentHash:   contenthash.H16(data),
		Env:           envVars(p.env),
		SecretEnv:     p.env,
		ProviderCount: m.providerCount,
		ConfigVersion: m.configVersion,
		Warnings:      m.warnings,
		SQLiteBackend: usesSQLite(m.out["storage"]),
	}
	if spec.Resources != nil {
		res.ResourceCount = len(spec.Resources.Models)
	}
	return res, nil
}

// envVars turns the collected variables into container env entries, with
// no `optional`.
func envVars(vars []v1beta1.SecretEnvVar) []corev1.EnvVar {
	if len(vars) == 0 {
		return nil
	}
	out := make([]corev1.EnvVar, 0, len(vars))
	for _, v := range vars {
		out = append(out, corev1.EnvVar{
			Name: v.Name,
			ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: v.Ref.Name},
				Key:                  v.Ref.Key,
			}},
		})
	}
	return out
}
