package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/ogx-k8s/ogx-controller/pkg/admission"
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
)

// checkDistribution is a distribution name no release knows: it passes the
// CRD schema (any string does), so only the webhook can deny it.
const checkDistribution = "ogx-check-admission-unknown"

// serviceAccountNamespaceFile holds the namespace of an in-cluster pod.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Exit codes of check-admission; its own, so that it does not depend on
// another command's.
const (
	checkPassed = 0
	checkFailed = 1
	checkUsage  = 2
)

// errAdmitted: the API server admitted the invalid OGXServer, so the
// webhook was not asked (no webhook configuration, or one that does not
// match) or it let the object through.
var errAdmitted = errors.New("the API server admitted an OGXServer with an unknown distribution: the validating webhook did not deny it (is its ValidatingWebhookConfiguration installed?)")

// runCheckAdmission is `ogx-controller check-admission`, the Helm chart's
// `helm test` (charts/ogx-controller/templates/tests): it asks the API
// server to create, as a dry run, an OGXServer that only the validating
// webhook can reject, and succeeds when the webhook denies it with its own
// message. So the webhook configuration, its Service, the serving
// certificate the API server verifies and the controller's admission
// listener are shown to work together. Nothing is stored. It retries until
// --timeout while the webhook cannot be called (replicas still starting),
// and fails at once when the object is admitted.
//
// Exit codes: 0 the webhook denied the object, 1 it did not (the reason on
// stderr), 2 usage.
func runCheckAdmission(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return checkAdmissionCommand(ctx, args, serviceAccountNamespaceFile, stdout, stderr)
}

// checkAdmissionCommand is runCheckAdmission reading the pod's namespace
// from nsFile when --namespace is not given.
func checkAdmissionCommand(ctx context.Context, args []string, nsFile string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ogx-controller check-admission", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig path; empty means in-cluster config")
	namespace := fs.String("namespace", "", "namespace of the dry-run OGXServer (the identity needs create on ogxservers there); empty means the pod's own")
	timeout := fs.Duration("timeout", time.Minute, "how long to retry while the webhook cannot be called")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return checkPassed
		}
		return checkUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "check-admission takes no arguments, got %q\n", fs.Args())
		return checkUsage
	}
	ns := *namespace
	if ns == "" {
		b, err := os.ReadFile(nsFile)
		if err != nil {
			fmt.Fprintf(stderr, "--namespace not set and not in a pod: %v\n", err)
			return checkUsage
		}
		ns = strings.TrimSpace(string(b))
	}
	var cfg *rest.Config
	var err error
	if *kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		fmt.Fprintf(stderr, "building client config: %v\n", err)
		return checkFailed
	}
	cfg.UserAgent = "ogx-controller/" + version + " (check-admission)"
	client, err := versioned.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "building client: %v\n", err)
		return checkFailed
	}
	msg, err := checkAdmission(klog.NewContext(ctx, klog.Background()), client, ns, time.Second, *timeout)
	if err != nil {
		fmt.Fprintf(stderr, "FAIL: %v\n", err)
		return checkFailed
	}
	fmt.Fprintf(stdout, "PASS: the webhook denied an invalid OGXServer in %s: %s\n", ns, msg)
	return checkPassed
}

// checkAdmission makes the dry-run create every interval until the webhook
// answers or timeout passes, and returns the denial's message.
func checkAdmission(ctx context.Context, client versioned.Interface, ns string, interval, timeout time.Duration) (string, error) {
	logger := klog.FromContext(ctx)
	server := &ogxv1beta1.OGXServer{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ogx-check-admission-", Namespace: ns},
		Spec:       ogxv1beta1.OGXServerSpec{Distribution: ogxv1beta1.DistributionSpec{Name: ptr.To(checkDistribution)}},
	}
	var denial string
	var last error
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		_, err := client.OgxV1beta1().OGXServers(ns).Create(ctx, server, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return false, errAdmitted
		case isDenial(err):
			denial = err.Error()
			return true, nil
		default:
			// Not reachable yet, or not allowed: retried, and reported if
			// it lasts.
			logger.Info("The webhook did not answer yet", "err", err)
			last = err
			return false, nil
		}
	})
	switch {
	case err == nil:
		return denial, nil
	case errors.Is(err, errAdmitted):
		return "", err
	case last != nil:
		return "", fmt.Errorf("no answer from the webhook within %s: %w", timeout, last)
	default:
		return "", fmt.Errorf("no answer from the webhook within %s: %w", timeout, err)
	}
}

// isDenial reports whether err is the webhook's own denial of the
// distribution, as the API server words it.
func isDenial(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, fmt.Sprintf("admission webhook %q denied the request", admission.WebhookName)) &&
		strings.Contains(msg, "spec.distribution.name")
}
