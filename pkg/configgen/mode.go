package configgen

import (
	"errors"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// Mode is where the server's config.yaml comes from
// (docs/config-generation.md, Config modes).
type Mode = v1beta1.ConfigMode

// The three modes. They alias the API package's constants so that the
// controllers and this package can never disagree on the gate.
const (
	ModeOverride  = v1beta1.ConfigModeOverride
	ModeGenerated = v1beta1.ConfigModeGenerated
	ModeInactive  = v1beta1.ConfigModeInactive
)

// Gate errors (E1, E2). They are sentinel values so that `render` can tell
// them apart from generation failures with errors.Is.
var (
	ErrOverrideMode = errors.New("config generation is disabled: spec.overrideConfig supplies the config.yaml")
	ErrInactiveMode = errors.New("nothing to generate: set spec.providers, spec.resources, spec.storage, spec.disabledAPIs or spec.network.tls")
)

// ModeOf applies the mode gate (docs/config-generation.md, Config modes). A
// nil spec is inactive.
func ModeOf(spec *v1beta1.OGXServerSpec) Mode {
	if spec == nil {
		return ModeInactive
	}
	return spec.ConfigMode()
}

// gate returns the E1/E2 error for a spec that is not in generated mode.
func gate(spec *v1beta1.OGXServerSpec) error {
	switch ModeOf(spec) {
	case ModeOverride:
		return ErrOverrideMode
	case ModeInactive:
		return ErrInactiveMode
	}
	return nil
}
