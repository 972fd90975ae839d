//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ogx-k8s/ogx-controller/test/framework"
)

// operatorUser is the identity the ogx-controller replicas use; the audit
// policy records only its requests, so the log is the operator's traffic.
const operatorUser = "ogx-controller"

// suite is the package's shared state, set once in TestMain.
type suite struct {
	cp   *framework.ControlPlane
	root string
	// fleet is the number of OGXServers each rollout scenario rolls out
	// (FAULTS_N, default 200).
	fleet int
	// idle is the window in which a converged operator must write nothing
	// (FAULTS_IDLE, default 60s).
	idle time.Duration
}

var s suite

// defaults of the FAULTS_* environment variables.
const (
	defaultFleet = 200
	defaultIdle  = 60 * time.Second
)

// config reads FAULTS_N and FAULTS_IDLE, so the suite can run small while
// it is being worked on.
func config() (int, time.Duration, error) {
	n, idle := defaultFleet, defaultIdle
	if v := os.Getenv("FAULTS_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 4 {
			return 0, 0, fmt.Errorf("FAULTS_N=%q: want an integer of at least 4", v)
		}
	}
	if v := os.Getenv("FAULTS_IDLE"); v != "" {
		var err error
		if idle, err = time.ParseDuration(v); err != nil || idle <= 0 {
			return 0, 0, fmt.Errorf("FAULTS_IDLE=%q: want a positive duration such as 60s", v)
		}
	}
	return n, idle, nil
}

// grantClusterAdmin binds user to the cluster-admin ClusterRole. The suite
// is about faults, not permissions (test/e2e checks the shipped RBAC).
func grantClusterAdmin(ctx context.Context, c *framework.ControlPlane, user string) error {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "faults-" + user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.Client().RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("binding %s to cluster-admin: %w", user, err)
	}
	return nil
}

func TestMain(m *testing.M) {
	n, idle, err := config()
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(2)
	}
	os.Exit(framework.RunMain(m, framework.Options{
		Full:  true,
		Nodes: 2,
		// Each server has one pod (1 CPU; a node offers 2 CPU per pod of
		// capacity) plus a surge pod during a rollout, and pods of an
		// earlier scenario's namespace may still be terminating.
		PodsPerNode: 2*n + 50,
		// Not in system:masters, so API Priority and Fairness classifies
		// its requests (the throttle scenario); bound to cluster-admin
		// below.
		RBACUsers:   []string{operatorUser},
		AuditPolicy: framework.AuditPolicyForUsers(operatorUser),
	}, func(c *framework.ControlPlane) error {
		root, err := framework.ModuleRoot()
		if err != nil {
			return err
		}
		s = suite{cp: c, root: root, fleet: n, idle: idle}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := grantClusterAdmin(ctx, c, operatorUser); err != nil {
			return err
		}
		return c.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases", "ogx.io_ogxservers.yaml"))
	}))
}
