// Package v1 is a small API for the apiref generator's test.
//
// +groupName=example.io
package v1
