package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// UnavailableError is every failure of a resolution, worded to tell the user
// to set spec.baseConfig (docs/config-generation.md, When the base cannot be
// read); the controller reports it with reason BaseConfigUnavailable. Err is
// the cause.
type UnavailableError struct {
	Image string
	Err   error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("failed to resolve base config from OCI labels of %s: %v. "+
		"Set spec.baseConfig to a ConfigMap (labelled ogx.io/watch=true) that holds the distribution's config.yaml.", e.Image, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// errAnonymous is E11.
func errAnonymous(host, repo string) error {
	return fmt.Errorf("registry %s does not allow anonymous pull of %s", host, repo)
}

// transportErr words a failed request: a deadline or timeout is "timed out
// fetching <url>" (E12), anything else names the URL and the cause.
func transportErr(url string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("timed out fetching %s", url)
	}
	return fmt.Errorf("fetching %s: %w", url, err)
}
