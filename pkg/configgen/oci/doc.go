// Package oci reads a distribution's base config.yaml from the labels of its
// container image (docs/config-generation.md, From image labels and the
// sections after it; the error and warning IDs in comments are those of its
// section Errors and warnings).
//
// It speaks the OCI Distribution v2 protocol with net/http only: anonymous
// bearer tokens, tag-to-digest resolution with one HEAD, image index to
// platform manifest to config blob, digest verification of every body, size
// limits and one deadline per resolution. Results are kept in a small
// digest-keyed LRU cache, so a digest-pinned image costs no network I/O
// after the first resolution and a tag costs one HEAD.
//
// No docker daemon, no shelling out, no credentials: a registry that refuses
// anonymous pulls is an error that tells the user to set spec.baseConfig.
package oci
