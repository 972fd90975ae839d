package status

// Tests of the condition bookkeeping (conditions.go): order,
// lastTransitionTime, observedGeneration and the message cap. The fixtures
// are in status_compute_test.go.

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/base"
	"github.com/ogx-k8s/ogx-controller/pkg/controller/probe"
)

// TestStatusComputeConditionBookkeeping covers order, presence of
// Reconciling/Stalled, lastTransitionTime (changed only on a flip),
// observedGeneration and version.lastUpdated.
func TestStatusComputeConditionBookkeeping(t *testing.T) {
	scaling := func(a, d int) string { return fmt.Sprintf("Deployment is scaling: %d/%d replicas available", a, d) }
	rollingAt := func(msg string, t metav1.Time) ogxv1beta1.OGXServerStatus {
		st := scStatus(ogxv1beta1.PhaseInitializing, 0,
			scConfigInactive(t),
			scCond(ogxv1beta1.ConditionDeploymentReady, metav1.ConditionFalse, "DeploymentProgressing", msg, t),
			scServiceReady(t), scHealthDisabled(t),
			scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, "DeploymentProgressing", msg, t),
			scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, msg, t))
		st.Version.LastUpdated = t
		return st
	}
	failedAt := func(t metav1.Time) ogxv1beta1.OGXServerStatus {
		st := scStatus(ogxv1beta1.PhaseFailed, 1,
			scConfigInactive(t), scDeployReady(t),
			scCond(ogxv1beta1.ConditionServiceReady, metav1.ConditionFalse, "ServiceFailed", scSvcConf, t),
			scHealthDisabled(t),
			scCond(ogxv1beta1.ConditionReady, metav1.ConditionFalse, ogxv1beta1.ReasonChildConflict, scSvcConf, t),
			scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonChildConflict, scSvcConf, t))
		st.ServiceURL = ""
		st.Version.LastUpdated = t
		return st
	}
	conflict := func(in *statusInputs) {
		in.outcomes["service"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonChildConflict, Message: scSvcConf}
		in.serviceExists = false
	}

	scRun(t, []scCase{
		{
			name: "unchanged inputs: the stored status is reproduced exactly",
			in:   scInputs(scWithStatus(scReadyStatus())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "still rolling out, message changes: every lastTransitionTime stays (Reconciling included)",
			in: scInputs(scWithStatus(rollingAt(scaling(0, 2), scT0)), func(in *statusInputs) {
				in.server.Spec.Workload = &ogxv1beta1.WorkloadSpec{Replicas: ptr.To[int32](2)}
				in.deployment = scDeployment(2, 1)
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: func() ogxv1beta1.OGXServerStatus {
				st := rollingAt(scaling(1, 2), scT0)
				st.AvailableReplicas = 1
				return st
			}()},
		},
		{
			name: "still rolling out, nothing changes: the status is reproduced exactly",
			in: scInputs(scWithStatus(rollingAt(scaling(0, 1), scT0)), func(in *statusInputs) {
				in.deployment = scDeployment(1, 0)
			}),
			want: statusResult{requeueAfter: 10 * time.Second, status: rollingAt(scaling(0, 1), scT0)},
		},
		{
			name: "still failed: Stalled keeps its lastTransitionTime",
			in:   scInputs(scWithStatus(failedAt(scT0)), conflict),
			want: statusResult{requeueAfter: time.Minute, status: failedAt(scT0)},
		},
		{
			name: "rollout completes: flipped conditions move, Reconciling goes",
			in:   scInputs(scWithStatus(rollingAt(scaling(0, 1), scT0))),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scConfigInactive(scT0), scDeployReady(scNow), scServiceReady(scT0), scHealthDisabled(scT0),
					scReadyAvailable("1/1 replicas available", scNow))
				st.Version.LastUpdated = scT0
				return st
			}()},
		},
		{
			name: "fixed: Stalled goes, Ready flips",
			in:   scInputs(scWithStatus(failedAt(scT0))),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scStatus(ogxv1beta1.PhaseReady, 1,
					scConfigInactive(scT0), scDeployReady(scT0), scServiceReady(scNow), scHealthDisabled(scT0),
					scReadyAvailable("1/1 replicas available", scNow))
				st.Version.LastUpdated = scT0
				return st
			}()},
		},
		{
			name: "fixed order, unknown types dropped, stale Reconciling and Stalled removed",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				c := st.Conditions
				st.Conditions = []metav1.Condition{
					scCond(ogxv1beta1.ConditionStalled, metav1.ConditionTrue, ogxv1beta1.ReasonChildConflict, "old", scT0),
					c[4], c[3],
					{Type: "Bogus", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: scT0},
					scCond(ogxv1beta1.ConditionReconciling, metav1.ConditionTrue, ogxv1beta1.ReasonProgressing, "old", scT0),
					c[1], c[0], c[2],
				}
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "new generation: observedGeneration moves everywhere, times stay",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.ObservedGeneration = 1
				for i := range st.Conditions {
					st.Conditions[i].ObservedGeneration = 1
				}
				return st
			}())),
			want: statusResult{requeueAfter: 5 * time.Minute, status: scReadyStatus()},
		},
		{
			name: "new operator version: lastUpdated moves",
			in:   scInputs(scWithStatus(scReadyStatus()), func(in *statusInputs) { in.operatorVersion = "v1.1.0" }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version = ogxv1beta1.VersionInfo{OperatorVersion: "v1.1.0", LastUpdated: scNow}
				return st
			}()},
		},
		{
			name: "probe reports the known server version: lastUpdated stays",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = &probe.Result{Healthy: true, Version: "0.4.1"} }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()},
		},
		{
			name: "probe reports a new server version: lastUpdated moves",
			in: scInputs(scWithStatus(func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version.ServerVersion = "0.4.1"
				return st
			}()), func(in *statusInputs) { in.probe = &probe.Result{Healthy: true, Version: "0.5.0"} }),
			want: statusResult{requeueAfter: 5 * time.Minute, status: func() ogxv1beta1.OGXServerStatus {
				st := scReadyStatus()
				st.Version = ogxv1beta1.VersionInfo{OperatorVersion: "v1.0.0", ServerVersion: "0.5.0", LastUpdated: scNow}
				return st
			}()},
		},
	})
}

// TestStatusComputeConditionMessageCap: messages are capped at 32768 bytes,
// on a character boundary.
func TestStatusComputeConditionMessageCap(t *testing.T) {
	for _, tc := range []struct {
		name, long string
		wantLen    int
	}{
		{"ASCII", strings.Repeat("x", 40000), maxConditionMessage},
		// "é" is two bytes and the cut falls inside one: one byte less.
		{"two-byte characters", "xx" + strings.Repeat("é", 20000), maxConditionMessage - 1},
	} {
		in := scInputs(func(in *statusInputs) {
			in.outcomes["deployment"] = base.Outcome{Generation: scGen, Class: base.OutcomeUserError, Reason: ogxv1beta1.ReasonApplyFailed, Message: tc.long}
		})
		res := computeStatus(in)
		for _, typ := range []string{ogxv1beta1.ConditionReady, ogxv1beta1.ConditionStalled} {
			c := apimeta.FindStatusCondition(res.status.Conditions, typ)
			if c == nil {
				t.Fatalf("%s: %s missing", tc.name, typ)
			}
			if len(c.Message) != tc.wantLen || !utf8.ValidString(c.Message) || !strings.HasSuffix(c.Message, "…") || !strings.HasPrefix(c.Message, "x") {
				t.Errorf("%s: %s message: %d bytes, valid UTF-8 %v, suffix %q", tc.name, typ, len(c.Message), utf8.ValidString(c.Message), c.Message[len(c.Message)-5:])
			}
		}
	}
}
