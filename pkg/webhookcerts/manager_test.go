package webhookcerts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
)

func TestNewChecksOptions(t *testing.T) {
	if _, err := New(Options{Namespace: testNS}); err == nil {
		t.Error("New without a client succeeded")
	}
	f := newFixture(t)
	if _, err := New(Options{Kube: f.kube}); err == nil {
		t.Error("New without a namespace succeeded")
	}
	m := f.manager(t, Options{ServiceName: "svc", Namespace: "ns", ClusterDomain: "example.org"})
	want := []string{"svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.example.org"}
	if got := m.DNSNames(); !slices.Equal(got, want) {
		t.Errorf("DNSNames = %v, want %v", got, want)
	}
}

func TestReadErrorsAreReturned(t *testing.T) {
	f := newFixture(t)
	f.kube.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, DefaultSecretName, errors.New("no"))
	})
	for name, call := range map[string]func(context.Context) (bool, error){
		"EnsureSecret": f.m.EnsureSecret, "SyncCABundle": f.m.SyncCABundle, "WriteFiles": f.m.WriteFiles,
	} {
		if _, err := call(f.ctx); !apierrors.IsForbidden(err) {
			t.Errorf("%s error = %v, want a wrapped Forbidden", name, err)
		}
	}
	f.expectNoWrites(t)
}

func TestRunLoops(t *testing.T) {
	f := newFixture(t, webhookConfiguration())
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { f.m.RunReplica(ctx, 50*time.Millisecond); done <- struct{}{} }()
	go func() { f.m.RunLeader(ctx, 50*time.Millisecond); done <- struct{}{} }()
	defer func() {
		cancel()
		<-done
		<-done
	}()

	// The leader creates the Secret and sets the caBundle; the replica,
	// which started before the Secret existed, writes the files.
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := f.kube.CoreV1().Secrets(testNS).Get(ctx, DefaultSecretName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		vwc, err := f.kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, DefaultWebhookConfigurationName, metav1.GetOptions{})
		if err != nil || !bytes.Equal(vwc.Webhooks[0].ClientConfig.CABundle, s.Data[CACertKey]) {
			return false, nil
		}
		crt, err := os.ReadFile(filepath.Join(f.dir, TLSCertKey))
		return err == nil && bytes.Equal(crt, s.Data[TLSCertKey]), nil
	})
	if err != nil {
		t.Fatalf("loops did not converge: %v", err)
	}

	// A renewal reaches the files.
	f.clock.Set(start.Add(ServingLifetime))
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := f.kube.CoreV1().Secrets(testNS).Get(ctx, DefaultSecretName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		crt, err := os.ReadFile(filepath.Join(f.dir, TLSCertKey))
		return err == nil && bytes.Equal(crt, s.Data[TLSCertKey]) &&
			parseSecret(t, s.Data).serving.NotAfter.After(start.Add(ServingLifetime)), nil
	})
	if err != nil {
		t.Fatalf("renewal did not reach the files: %v", err)
	}
}
