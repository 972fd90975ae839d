package base

import (
	"errors"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// DynamicClientFor builds a dynamic client on the HTTP client and rate
// limiter of a real clientset; nil for anything else (fakes).
func DynamicClientFor(kube kubernetes.Interface) (dynamic.Interface, error) {
	cs, ok := kube.(*kubernetes.Clientset)
	if !ok || cs == nil {
		return nil, nil
	}
	rc, ok := cs.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return nil, nil
	}
	if rc.Client == nil {
		return nil, errors.New("the clientset has no HTTP client")
	}
	// The core client's base URL is <host>[/<prefix>]/api/v1.
	u := rc.Get().URL()
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v1")
	u.RawQuery, u.Fragment = "", ""
	cfg := &rest.Config{Host: u.String(), RateLimiter: rc.GetRateLimiter()}
	return dynamic.NewForConfigAndClient(cfg, rc.Client)
}
