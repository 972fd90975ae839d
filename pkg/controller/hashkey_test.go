package controller

import (
	"bytes"
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/controllertest"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// TestEnsureHashKey: the leader creates the hash-key Secret with a random
// 32-byte key when it is missing, leaves an existing one alone, and creates
// a new key after a delete (a rotation).
func TestEnsureHashKey(t *testing.T) {
	e := newSFEnv(t, base.Options{}, nil)
	ns := e.m.Opts.OperatorNamespace
	get := func() []byte {
		t.Helper()
		sec, err := e.kube.CoreV1().Secrets(ns).Get(e.ctx, render.HashKeySecretName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sec.Labels[render.LabelManagedBy] != render.ManagedByValue {
			t.Errorf("labels %v", sec.Labels)
		}
		return sec.Data[render.HashKeyDataKey]
	}
	e.m.ensureHashKey(e.ctx)
	first := get()
	if len(first) != hashKeyBytes {
		t.Fatalf("key of %d bytes, want %d", len(first), hashKeyBytes)
	}
	e.KubeWrites() // from here on
	e.m.ensureHashKey(e.ctx)
	if w := e.KubeWrites(); len(w) != 0 {
		t.Errorf("an existing key was written again:%s", controllertest.Describe(w))
	}
	// Rotation: delete it; the delete event wakes keepHashKey.
	go e.m.keepHashKey(e.ctx)
	if err := e.kube.CoreV1().Secrets(ns).Delete(e.ctx, render.HashKeySecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var second []byte
	err := wait.PollUntilContextTimeout(e.ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx2 context.Context) (bool, error) {
		sec, err := e.kube.CoreV1().Secrets(ns).Get(ctx2, render.HashKeySecretName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		second = sec.Data[render.HashKeyDataKey]
		return true, nil
	})
	if err != nil {
		t.Fatalf("no new hash key after the delete: %v", err)
	}
	if len(second) != hashKeyBytes || bytes.Equal(first, second) {
		t.Errorf("rotated key %x, first %x: want a new 32-byte key", second, first)
	}
}
