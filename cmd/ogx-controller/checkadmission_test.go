package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned/fake"
)

// denial is the API server's error for a webhook denial of the
// distribution, as test/chart/e2e sees it from the real webhook.
var denial = apierrors.NewForbidden(schema.GroupResource{Group: "ogx.io", Resource: "ogxservers"}, "",
	errors.New(`admission webhook "vogxserver.kb.io" denied the request: spec.distribution.name: Unsupported value: "ogx-check-admission-unknown"`))

// unreachable is the API server's error while no replica answers.
var unreachable = apierrors.NewInternalError(errors.New(`failed calling webhook "vogxserver.kb.io": failed to call webhook: connection refused`))

func TestCheckAdmission(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "ogx.io", Resource: "ogxservers"}, "",
		errors.New(`User "system:serviceaccount:ogx-system:x" cannot create resource "ogxservers"`))
	otherDenial := apierrors.NewForbidden(schema.GroupResource{Group: "ogx.io", Resource: "ogxservers"}, "",
		errors.New(`admission webhook "policy.example" denied the request: no`))
	tests := []struct {
		name    string
		answers []error // one per attempt; the last repeats; nil admits
		wantErr string  // empty: passes
		calls   int     // attempts made, 0 for "more than one"
	}{
		{name: "the webhook denies at once", answers: []error{denial}, calls: 1},
		{name: "the webhook answers after it was unreachable", answers: []error{unreachable, unreachable, denial}, calls: 3},
		{name: "admitted: fails without retrying", answers: []error{nil}, wantErr: "admitted an OGXServer", calls: 1},
		{name: "never reachable: the last error is reported", answers: []error{unreachable}, wantErr: "failed calling webhook"},
		{name: "no permission: reported", answers: []error{forbidden}, wantErr: "cannot create resource"},
		{name: "another webhook's denial is not ours", answers: []error{otherDenial}, wantErr: "policy.example"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset()
			calls := 0
			client.PrependReactor("create", "ogxservers", func(a clienttesting.Action) (bool, runtime.Object, error) {
				ca := a.(clienttesting.CreateActionImpl)
				if d := cmp.Diff([]string{metav1.DryRunAll}, ca.CreateOptions.DryRun); d != "" || ca.Namespace != "team-a" {
					t.Errorf("create in %q with dryRun %v: want a dry run in team-a", ca.Namespace, ca.CreateOptions.DryRun)
				}
				if s := ca.Object.(*ogxv1beta1.OGXServer); s.Spec.Distribution.Name == nil || *s.Spec.Distribution.Name != checkDistribution {
					t.Errorf("the checked server names distribution %v", s.Spec.Distribution.Name)
				}
				err := tc.answers[min(calls, len(tc.answers)-1)]
				calls++
				return true, ca.Object, err
			})
			msg, err := checkAdmission(t.Context(), client, "team-a", time.Millisecond, 50*time.Millisecond)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case tc.wantErr == "" && !strings.Contains(msg, `"vogxserver.kb.io" denied`):
				t.Errorf("message %q", msg)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
			}
			if (tc.calls > 0 && calls != tc.calls) || (tc.calls == 0 && calls < 2) {
				t.Errorf("%d attempts, want %d (0: more than one)", calls, tc.calls)
			}
		})
	}
}

// TestCheckAdmissionUsage: stray arguments are a usage error, and without
// --namespace outside a pod the command says what is missing.
func TestCheckAdmissionUsage(t *testing.T) {
	var out, errb strings.Builder
	if code := runCheckAdmission(t.Context(), []string{"extra"}, &out, &errb); code != checkUsage {
		t.Errorf("exit %d, want %d", code, checkUsage)
	}
	errb.Reset()
	noPod := filepath.Join(t.TempDir(), "namespace") // the test may run in a pod
	if code := checkAdmissionCommand(t.Context(), []string{"--kubeconfig=/nonexistent"}, noPod, &out, &errb); code != checkUsage || !strings.Contains(errb.String(), "--namespace") {
		t.Errorf("exit %d, stderr %q: want a usage error naming --namespace", code, errb.String())
	}
}
