package controller

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

// TestPassesCarryReconcileIDs: every line a pass logs names its controller,
// its key and a reconcile ID of its own.
func TestPassesCarryReconcileIDs(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	ctx := klog.NewContext(context.Background(), logger)
	q := newQueueRunner("test", func(ctx context.Context, key string) (Result, error) {
		klog.FromContext(ctx).Info("working")
		return Result{}, nil
	}, metrics.New("test"))
	for range 2 {
		q.Enqueue("ns/s")
		q.processNext(ctx)
	}
	var ids []string
	for _, l := range lines {
		if strings.Contains(l, `"working"`) {
			if !strings.Contains(l, `"controller"="test"`) || !strings.Contains(l, `"ogxserver"="ns/s"`) {
				t.Errorf("line without controller or key: %s", l)
			}
			_, id, ok := strings.Cut(l, `"reconcileID"=`)
			if !ok {
				t.Fatalf("line without a reconcile ID: %s", l)
			}
			ids = append(ids, strings.Fields(id)[0])
		}
	}
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("reconcile IDs %v, want two distinct", ids)
	}
}
