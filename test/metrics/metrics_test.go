package metrics

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	ogxmetrics "github.com/ogx-k8s/ogx-controller/pkg/metrics"
)

const (
	pollInterval = 100 * time.Millisecond
	// pollTimeout exceeds the 30 s deny cache, so a denial cached while RBAC
	// was still propagating cannot fail the test.
	pollTimeout = 60 * time.Second
)

// readerClusterRole reads the scrapers' ClusterRole from the manifests.
func readerClusterRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "config", "rbac", "metrics_reader_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("metrics_reader_role.yaml: %v", err)
	}
	if role.Kind != "ClusterRole" || role.Name == "" {
		t.Fatalf("metrics_reader_role.yaml holds %s %q, want a ClusterRole", role.Kind, role.Name)
	}
	return role
}

// createClusterScoped creates obj with create and deletes it with del when
// the test ends.
func createClusterScoped(t *testing.T, what string, create func(context.Context) error, del func(context.Context) error) {
	t.Helper()
	if err := create(t.Context()); err != nil {
		t.Fatalf("creating %s: %v", what, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := del(ctx); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s: %v", what, err)
		}
	})
}

// serviceAccountToken creates ServiceAccount name in ns and returns a token
// for it from the TokenRequest API.
func serviceAccountToken(t *testing.T, ns, name string) string {
	t.Helper()
	sas := kube.CoreV1().ServiceAccounts(ns)
	if _, err := sas.Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ServiceAccount %s: %v", name, err)
	}
	tr, err := sas.CreateToken(t.Context(), name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s: %v", name, err)
	}
	return tr.Status.Token
}

// waitAllowed waits until the API server's authorizer lets the
// ServiceAccount get /metrics, so RBAC propagation is over before the first
// scrape.
func waitAllowed(t *testing.T, ns, name string) {
	t.Helper()
	var last authorizationv1.SubjectAccessReviewStatus
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, pollTimeout, true, func(ctx context.Context) (bool, error) {
		sar, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{
				User:                  fmt.Sprintf("system:serviceaccount:%s:%s", ns, name),
				Groups:                []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return false, nil
		}
		last = sar.Status
		return sar.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("%s/%s not allowed to get /metrics before the deadline (last: %+v): %v", ns, name, last, err)
	}
}

// scrape GETs url with an optional bearer token.
func scrape(ctx context.Context, c *http.Client, url, token string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// scrapeUntil scrapes until the answer has status want, failing the test at
// the deadline, and returns the body.
func scrapeUntil(t *testing.T, c *http.Client, url, token string, want int) string {
	t.Helper()
	var code int
	var body string
	var lastErr error
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, pollTimeout, true, func(ctx context.Context) (bool, error) {
		code, body, lastErr = scrape(ctx, c, url, token)
		return lastErr == nil && code == want, nil
	})
	if err != nil {
		t.Fatalf("GET %s: no %d before the deadline; last %d %q (%v)", url, want, code, body, lastErr)
	}
	return body
}

func TestMetricsEndpointAuthentication(t *testing.T) {
	ns := cp.CreateNamespace(t, "metrics")

	// The manifest's ClusterRole as released (ogx-controller-metrics-reader).
	role := readerClusterRole(t)
	createClusterScoped(t, "ClusterRole "+role.Name, func(ctx context.Context) error {
		_, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
		return err
	}, func(ctx context.Context) error {
		return kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "reader", Namespace: ns}},
	}
	createClusterScoped(t, "ClusterRoleBinding "+binding.Name, func(ctx context.Context) error {
		_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})
		return err
	}, func(ctx context.Context) error {
		return kube.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
	})
	readerToken := serviceAccountToken(t, ns, "reader")
	strangerToken := serviceAccountToken(t, ns, "stranger")
	waitAllowed(t, ns, "reader")

	m := ogxmetrics.New("v0.0.0-integration")
	srv, err := ogxmetrics.NewServer(ogxmetrics.Options{Addr: "127.0.0.1:0", Secure: true, Kube: kube, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	url := "https://" + srv.Addr().String() + "/metrics"
	// The certificate is self-signed in memory; scrapers of such an
	// endpoint skip verification.
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(c.CloseIdleConnections)

	t.Run("no token", func(t *testing.T) {
		body := scrapeUntil(t, c, url, "", http.StatusUnauthorized)
		if strings.Contains(body, "ogx_controller") {
			t.Errorf("metrics leaked without a token")
		}
	})
	t.Run("invalid token", func(t *testing.T) {
		scrapeUntil(t, c, url, "not-a-token", http.StatusUnauthorized)
	})
	t.Run("stranger", func(t *testing.T) {
		body := scrapeUntil(t, c, url, strangerToken, http.StatusForbidden)
		if strings.Contains(body, "ogx_controller") {
			t.Errorf("metrics leaked to a ServiceAccount without RBAC")
		}
	})
	t.Run("reader", func(t *testing.T) {
		body := scrapeUntil(t, c, url, readerToken, http.StatusOK)
		if !strings.Contains(body, `ogx_controller_build_info{version="v0.0.0-integration"} 1`) {
			t.Errorf("body lacks ogx_controller_build_info:\n%s", body)
		}
		for _, name := range []string{"ogx_controller_leader", "go_goroutines", "process_cpu_seconds_total"} {
			if !strings.Contains(body, name) {
				t.Errorf("body lacks %s", name)
			}
		}
	})
	t.Run("reviews go through the REST client metrics", func(t *testing.T) {
		// The server's TokenReview and SubjectAccessReview calls used the
		// admin client, whose requests the REST metrics registered in
		// setup count.
		w := httptest.NewRecorder()
		restMetrics.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		posts := regexp.MustCompile(`(?m)^rest_client_requests_total\{code="201",host="[^"]+",method="POST"\} [1-9]`)
		if !posts.MatchString(w.Body.String()) {
			t.Errorf("REST client metrics lack the reviews' POSTs:\n%s", grep(w.Body.String(), "rest_client_"))
		}
	})
}

func grep(text, substr string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
