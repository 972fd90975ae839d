package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

func TestMain(m *testing.M) {
	n, idle, err := config()
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(2)
	}
	os.Exit(framework.RunMain(m, framework.Options{
		Full:        true,
		Nodes:       2,
		Users:       []string{operatorUser},
		AuditPolicy: framework.AuditPolicyForUsers(operatorUser),
	}, func(c *framework.ControlPlane) error {
		root, err := framework.ModuleRoot()
		if err != nil {
			return err
		}
		s = suite{cp: c, root: root, fleet: n, idle: idle}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return c.InstallCRDs(ctx, filepath.Join(root, "config", "crd", "bases", "ogx.io_ogxservers.yaml"))
	}))
}
