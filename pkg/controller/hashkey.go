package controller

import (
	"context"
	"crypto/rand"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/controller/caches"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// hashKeyBytes is the length of a new hash key: HMAC-SHA256's block-sized
// output, more than any guess can cover.
const hashKeyBytes = 32

// keepHashKey makes sure the hash-key Secret (render.HashKeySecretName)
// exists: it creates it with a random key when the cache lacks it, every
// 30 s and whenever a delete of it is seen (a rotation), until ctx is done.
// Only the leader runs it. The Secret is never updated: a key changes only
// by deleting the Secret.
func (m *Manager) keepHashKey(ctx context.Context) {
	for {
		m.ensureHashKey(ctx)
		select {
		case <-ctx.Done():
			return
		case <-m.hashKeyDeleted:
		case <-time.After(30 * time.Second):
		}
	}
}

// ensureHashKey creates the hash-key Secret if the cache lacks it and waits
// briefly for the cache to show it, so that the passes that follow find it.
// Failures are logged and retried by keepHashKey; passes that need the key
// meanwhile fail and are retried (resolve.ErrHashKeyPending).
func (m *Manager) ensureHashKey(ctx context.Context) {
	logger := klog.FromContext(ctx)
	ns := m.Opts.OperatorNamespace
	if sec, err := m.Caches.HashKeys.Secrets(ns).Get(render.HashKeySecretName); err == nil {
		if len(sec.Data[render.HashKeyDataKey]) == 0 {
			logger.Error(nil, "The hash key Secret has no key; delete it and a new one is created",
				"name", render.HashKeySecretName, "dataKey", render.HashKeyDataKey)
		}
		return
	}
	key := make([]byte, hashKeyBytes)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: render.HashKeySecretName, Namespace: ns,
			Labels: map[string]string{render.LabelManagedBy: render.ManagedByValue}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{render.HashKeyDataKey: key},
	}
	_, err := m.Kube.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{FieldManager: render.FieldManager})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Created by a previous leader; the cache will show it.
	case err != nil:
		logger.Error(err, "Could not create the hash key Secret; will retry", "name", render.HashKeySecretName)
		return
	default:
		logger.Info("Created the hash key Secret", "name", render.HashKeySecretName)
	}
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		_, err := m.Caches.HashKeys.Secrets(ns).Get(render.HashKeySecretName)
		return err == nil, nil
	})
}

// hashKeyEvents: a new or changed key changes the secret.hash/referenced
// annotation of every server with Secret-backed variables, so every server
// gets a deployment pass; a deleted one is created anew at once.
func (m *Manager) hashKeyEvents() []cache.ResourceEventHandler {
	return []cache.ResourceEventHandler{
		cache.ResourceEventHandlerFuncs{DeleteFunc: func(any) {
			select {
			case m.hashKeyDeleted <- struct{}{}:
			default:
			}
		}},
		caches.Handler(m.allServers, caches.DataOrLabelsChanged, m.deployment.Enqueue),
	}
}
