package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/events"
)

// TestCreateLogLevel: a child created for a server still starting is logged
// at -v=2 only; one created for a server past Initializing (a deleted child
// recreated) is logged at the default level, as is every update.
func TestCreateLogLevel(t *testing.T) {
	for _, tc := range []struct {
		phase  ogxv1beta1.Phase
		logged bool
	}{
		{"", false},
		{ogxv1beta1.PhasePending, false},
		{ogxv1beta1.PhaseInitializing, false},
		{ogxv1beta1.PhaseReady, true},
		{ogxv1beta1.PhaseFailed, true},
	} {
		var lines []string
		logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 0})
		ctx := klog.NewContext(context.Background(), logger)
		owner := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u"}}
		owner.Status.Phase = tc.phase
		c := &Child[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{
			Kind: "ServiceAccount", Recent: NewRecentWrites[*corev1.ServiceAccount](),
			Cached: func(string, string) (Known[*corev1.ServiceAccount], error) {
				return Known[*corev1.ServiceAccount]{}, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), "s-sa")
			},
			SetResourceVersion: func(ac *corev1ac.ServiceAccountApplyConfiguration, rv string) { SetTypedResourceVersion(ac, rv) },
			Apply: func(context.Context, string, *corev1ac.ServiceAccountApplyConfiguration) (*corev1.ServiceAccount, error) {
				return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns", ResourceVersion: "2"}}, nil
			},
		}
		if _, err := c.Converge(ctx, owner, "s-sa", corev1ac.ServiceAccount("s-sa", "ns")); err != nil {
			t.Fatalf("phase %q: %v", tc.phase, err)
		}
		logged := strings.Contains(strings.Join(lines, "\n"), "Applied child")
		if logged != tc.logged {
			t.Errorf("phase %q: create logged at the default level = %v, want %v (lines %q)", tc.phase, logged, tc.logged, lines)
		}
		// An update is logged at the default level whatever the phase.
		lines = nil
		c.Cached = func(string, string) (Known[*corev1.ServiceAccount], error) {
			return Known[*corev1.ServiceAccount]{Obj: &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s-sa", Namespace: "ns",
				ResourceVersion: "3", OwnerReferences: []metav1.OwnerReference{{UID: "u", Controller: ptr.To(true)}}}}, Digest: testDigest("old")}, nil
		}
		c.Recent = NewRecentWrites[*corev1.ServiceAccount]()
		if res, err := c.Converge(ctx, owner, "s-sa", corev1ac.ServiceAccount("s-sa", "ns")); err != nil || res != events.Updated {
			t.Fatalf("phase %q: update = %q, %v", tc.phase, res, err)
		}
		if !strings.Contains(strings.Join(lines, "\n"), "Applied child") {
			t.Errorf("phase %q: update not logged at the default level (lines %q)", tc.phase, lines)
		}
	}
}
