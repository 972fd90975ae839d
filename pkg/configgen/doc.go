// Package configgen generates the OGX server's config.yaml from an OGXServer
// spec and a base config; docs/config-generation.md describes the rules. The
// error and warning IDs in comments (E1–E21, W1–W6) are those of its section
// Errors and warnings.
//
// The package is pure: no clock, no environment, no network. The only I/O of
// the pipeline, resolving the base config, is done by the caller (a ConfigMap
// key, or the image's OCI labels through package oci), so the controllers,
// admission, the tests and `kubectl ogx render` all run the same code and
// get byte-identical output.
//
// Callers run ModeOf, then ValidateSpec (no I/O, so spec errors surface
// before any registry is contacted), then resolve the base, then Generate.
package configgen
