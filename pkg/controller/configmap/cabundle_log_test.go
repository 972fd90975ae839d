package configmap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/record"
	"github.com/ogx-k8s/ogx-controller/pkg/resolve"
)

// TestCABundleProblemsLoggedOncePerCause: a CA bundle problem that every
// pass finds again (a missing key, invalid PEM, skipped trusted-bundle keys)
// is logged the first time, and again only when it changes or returns after
// a fix; a transient error is no CA problem and logs nothing.
func TestCABundleProblemsLoggedOncePerCause(t *testing.T) {
	var lines []string
	ctx := klog.NewContext(context.Background(), funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{}))
	causes := base.NewCauseLog(record.New())
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo", UID: "u1"}}
	other := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "u2"}}
	missing := resolve.NewUserError(ogxv1beta1.ReasonReferenceNotFound, "ConfigMap ns/ca: key ca.crt not found")
	badPEM := &resolve.UserError{Reason: ogxv1beta1.ReasonInvalidCABundle, Err: errors.New("ca.crt: no PEM certificate")}
	skipped := resolve.CABundle{Warnings: []error{errors.New("odh-trusted-ca-bundle[extra.crt]: no PEM certificate")}}
	steps := []struct {
		s    *ogxv1beta1.OGXServer
		b    resolve.CABundle
		err  error
		logs int
	}{
		{s, resolve.CABundle{}, missing, 1},
		{s, resolve.CABundle{}, missing, 0},
		{s, resolve.CABundle{}, errors.New("connection refused"), 0},
		{s, resolve.CABundle{}, missing, 0},
		{other, resolve.CABundle{}, missing, 1},
		{s, resolve.CABundle{}, badPEM, 1},
		{s, resolve.CABundle{}, badPEM, 0},
		{s, skipped, nil, 1},
		{s, skipped, nil, 0},
		{s, resolve.CABundle{Data: "pem"}, nil, 0},
		{s, resolve.CABundle{}, badPEM, 1},
	}
	for i, st := range steps {
		before := len(lines)
		logCABundleProblems(ctx, causes, st.s, st.b, st.err)
		if got := len(lines) - before; got != st.logs {
			t.Errorf("step %d (%v, %v): %d log lines, want %d: %q", i, st.b.Warnings, st.err, got, st.logs, lines[before:])
		}
	}
}

// TestTrustedBundleNotWatchedLoggedOnce: an odh-trusted-ca-bundle left out
// for lacking the watch label is logged once per server, again only after
// it was fixed and came back; a labelled or absent bundle logs nothing, nor
// does an error that stopped before the bundle was looked up.
func TestTrustedBundleNotWatchedLoggedOnce(t *testing.T) {
	var lines []string
	ctx := klog.NewContext(context.Background(), funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{}))
	causes := base.NewCauseLog(record.New())
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo", UID: "u1"}}
	other := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other", UID: "u2"}}
	unwatched := resolve.CABundle{NotWatched: "ConfigMap ns/odh-trusted-ca-bundle lacks label ogx.io/watch=true"}
	missing := resolve.NewUserError(ogxv1beta1.ReasonReferenceNotFound, "ConfigMap ns/ca: key ca.crt not found")
	steps := []struct {
		s    *ogxv1beta1.OGXServer
		b    resolve.CABundle
		err  error
		logs int
	}{
		{s, resolve.CABundle{}, nil, 0},
		{s, unwatched, nil, 1},
		{s, unwatched, nil, 0},
		{s, resolve.CABundle{}, errors.New("connection refused"), 0},
		{s, resolve.CABundle{}, missing, 0},
		{s, unwatched, nil, 0},
		{other, unwatched, nil, 1},
		{s, resolve.CABundle{Data: "pem"}, nil, 0},
		{s, unwatched, nil, 1},
	}
	for i, st := range steps {
		before := len(lines)
		logTrustedBundleNotWatched(ctx, causes, st.s, st.b, st.err)
		if got := len(lines) - before; got != st.logs {
			t.Errorf("step %d (%q, %v): %d log lines, want %d: %q", i, st.b.NotWatched, st.err, got, st.logs, lines[before:])
		}
	}
	if len(lines) > 0 && !strings.Contains(lines[0], "ogx.io/watch=true") {
		t.Errorf("log line %q does not name the label", lines[0])
	}
}
