package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// UnavailableError is every failure of a resolution, worded to tell the user
// to set spec.baseConfig (docs/config-generation.md, When the base cannot be
// read); the controller reports it with reason BaseConfigUnavailable. Err is
// the cause.
//
// Its text goes to status, which whoever may create an OGXServer can read:
// a request that got no answer is shown by its URL alone, without the
// network's reason (refused, unknown host, TLS), so status cannot serve to
// map the addresses the operator reaches. Full carries that reason, for the
// log and for the render command.
type UnavailableError struct {
	Image string
	Err   error
	// Detailed makes Error the full text.
	Detailed bool
}

func (e *UnavailableError) Error() string {
	cause := e.Err.Error()
	var te *transportError
	if !e.Detailed && errors.As(e.Err, &te) {
		cause = strings.Replace(cause, te.Error(), "fetching "+te.url+" failed (the operator's log at -v=2 has the cause)", 1)
	}
	return e.text(cause)
}

// Full is the message with the network's reason for a failed request.
func (e *UnavailableError) Full() string { return e.text(e.Err.Error()) }

func (e *UnavailableError) text(cause string) string {
	return fmt.Sprintf("failed to resolve base config from OCI labels of %s: %s. "+
		"Set spec.baseConfig to a ConfigMap (labelled ogx.io/watch=true) that holds the distribution's config.yaml.", e.Image, cause)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// errAnonymous is E11.
func errAnonymous(host, repo string) error {
	return fmt.Errorf("registry %s does not allow anonymous pull of %s", host, repo)
}

// transportErr words a failed request: a deadline or timeout is "timed out
// fetching <url>" (E12), a redirect the resolver refused says why, anything
// else is a *transportError.
func transportErr(url string, err error) error {
	var ne net.Error
	var re *refusal
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Errorf("timed out fetching %s", url)
	case errors.As(err, &re):
		return fmt.Errorf("fetching %s: %w", url, re)
	}
	return &transportError{url: url, err: err}
}

// refusal is a redirect the resolver's own rules refused: it says nothing
// about the network, so status shows it.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

func refuse(format string, args ...any) error { return &refusal{msg: fmt.Sprintf(format, args...)} }

// transportError is a request that got no HTTP answer.
type transportError struct {
	url string
	err error
}

func (e *transportError) Error() string { return fmt.Sprintf("fetching %s: %v", e.url, e.err) }
func (e *transportError) Unwrap() error { return e.err }

// errNotAllowed is a registry outside Options.AllowedRegistries.
func errNotAllowed(registry string) error {
	return fmt.Errorf("registry %s is not among the registries the operator may contact (--allowed-registry)", registry)
}
