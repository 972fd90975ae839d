//go:build faults

package faults

import (
	"context"
	"fmt"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Worker counts of the throttled replicas, set by flag so the rate bound
// below follows from them.
const (
	throttleWorkers       = 2 // --workers: per child controller (deployment x2, service max(2, /2))
	throttleStatusWorkers = 4 // --status-workers
	// childControllers is the number of child controllers ogx-controller
	// runs (service, pvc, configmap, networkpolicy, ingress, pdb, hpa,
	// deployment, monitoring); see pkg/controller/manager.go.
	childControllers = 9
)

// throttleWindow is how long the operator is observed while every request
// it sends (other than to its Lease) is rejected.
const throttleWindow = 20 * time.Second

// maxThrottledRate bounds the operator's requests per second while
// throttled. Each worker has at most one request in flight, and client-go
// waits for the Retry-After the apiserver sends with a 429 (at least 1 s)
// before it sends that request again, so a worker makes at most one
// request a second. Informers whose watch breaks relist, at most once a
// second each with client-go's backoff; the Event recorder has its own
// budget (--event-qps=5). The bound is the sum, doubled for requests that
// straddle a second boundary.
var maxThrottledRate = float64(2 * (childControllers*throttleWorkers + throttleWorkers + throttleStatusWorkers + informers + 5))

// informers is how many informers a replica watching one namespace runs: the
// scope's 16 (OGXServers, 9 child kinds, watched ConfigMaps and Secrets,
// adopted PVCs, Services and Ingresses, pods; pkg/controller/caches.go),
// the operator ConfigMap and the CRDs of the optional APIs.
const informers = 18

// throttleName names the FlowSchema and PriorityLevelConfiguration.
const throttleName = "ogx-faults-throttle"

// throttlePrecedence is the FlowSchema's matchingPrecedence: before every
// suggested schema but exempt (1, reserved for it, and matching only
// system:masters, which the operator user is not in).
const throttlePrecedence = 2

// TestThrottledByPriorityAndFairness puts the operator's requests (all but
// its Lease renewals, so it keeps leading) into a priority level with no
// seats, which rejects each one with 429, in the middle of a rollout. The
// operator must back off (its request rate stays under maxThrottledRate,
// from the audit log), make no progress while throttled, and converge once
// the limit is lifted.
func TestThrottledByPriorityAndFairness(t *testing.T) {
	n := s.fleet
	ns := s.cp.CreateNamespace(t, "throttle")
	names := []string{"replica-a", "replica-b"}
	startReplicasWith(t, ns, []string{
		fmt.Sprintf("--workers=%d", throttleWorkers), fmt.Sprintf("--status-workers=%d", throttleStatusWorkers),
	}, names...)
	waitLeader(t, ns, time.Minute, names...)
	createFleet(t, ns, n, "v1")
	waitConverged(t, ns, n, "v1", fleetTimeout(n))

	throttle(t)
	start := time.Now()
	rollout(t, ns, n, "v2")
	var first time.Time
	poll(t, time.Minute, 250*time.Millisecond, "the operator's first 429", func(context.Context) (bool, error) {
		reqs, err := operatorRequests(ns, start)
		if err != nil {
			return false, err
		}
		for _, r := range reqs {
			if r.code == 429 {
				first = r.at
				return true, nil
			}
		}
		return false, nil
	})
	before, _, _, _, err := progress(t.Context(), ns, "v2")
	if err != nil {
		t.Fatal(err)
	}
	// Observe the throttled operator for the window. A level without
	// seats still dispatches some requests (the apiserver rounds a
	// level's limit up and lets lent seats be used), so the rollout may
	// progress slowly; the claims are the 429s and the bounded rate.
	var after int
	end := first.Add(throttleWindow)
	pollUntil(t, end, func(ctx context.Context) bool {
		if got, _, _, _, err := progress(ctx, ns, "v2"); err == nil {
			after = got
		}
		return false
	})
	reqs, err := operatorRequests(ns, first)
	if err != nil {
		t.Fatal(err)
	}
	var inWindow, rejected int
	for _, r := range reqs {
		if r.at.After(end) || r.resource == "leases" || r.verb == "watch" {
			continue
		}
		inWindow++
		if r.code == 429 {
			rejected++
		}
	}
	rate := float64(inWindow) / throttleWindow.Seconds()
	t.Logf("throttled for %s: %d requests (%d answered 429), %.1f/s (bound %.0f/s); Deployments updated %d -> %d of %d",
		throttleWindow, inWindow, rejected, rate, maxThrottledRate, before, after, n)
	if rate > maxThrottledRate {
		t.Errorf("the throttled operator sent %.1f requests/s, more than %.0f/s", rate, maxThrottledRate)
	}
	if rejected == 0 {
		t.Errorf("no request was rejected with 429: the throttle did not apply")
	}

	unthrottle(t)
	took := waitConverged(t, ns, n, "v2", fleetTimeout(n))
	t.Logf("converged %s after the limit was lifted (%s after the rollout began)", took.Round(time.Second), time.Since(start).Round(time.Second))
}

// pollUntil calls cond every 500 ms until it returns true or deadline
// passes, and reports whether it returned true.
func pollUntil(t *testing.T, deadline time.Time, cond func(ctx context.Context) bool) bool {
	t.Helper()
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// throttle creates a priority level with no seats of its own and none to
// borrow, rejecting (not queuing) what it cannot seat, and a FlowSchema
// sending the operator user's requests to it, except Leases.
func throttle(t *testing.T) {
	t.Helper()
	fc := s.cp.Client().FlowcontrolV1()
	ctx := t.Context()
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: throttleName},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To(int32(0)),
				LendablePercent:          ptr.To(int32(0)),
				BorrowingLimitPercent:    ptr.To(int32(0)),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	if _, err := fc.PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PriorityLevelConfiguration: %v", err)
	}
	// Every API group the operator writes or watches, but not
	// coordination.k8s.io: its Lease renewals keep the exempt level.
	groups := []string{"", "apps", "ogx.io", "networking.k8s.io", "policy", "autoscaling", "rbac.authorization.k8s.io",
		"events.k8s.io", "monitoring.coreos.com", "discovery.k8s.io"}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: throttleName},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: throttleName},
			MatchingPrecedence:         throttlePrecedence,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: operatorUser}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: groups, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true,
				}},
			}},
		},
	}
	if _, err := fc.FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating FlowSchema: %v", err)
	}
	t.Cleanup(func() { unthrottle(t) })
}

// unthrottle deletes the FlowSchema and priority level; deleting them
// again is not an error.
func unthrottle(t *testing.T) {
	t.Helper()
	fc := s.cp.Client().FlowcontrolV1()
	ctx := context.WithoutCancel(t.Context())
	if err := fc.FlowSchemas().Delete(ctx, throttleName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting FlowSchema: %v", err)
	}
	if err := fc.PriorityLevelConfigurations().Delete(ctx, throttleName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting PriorityLevelConfiguration: %v", err)
	}
}
