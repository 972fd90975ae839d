package framework

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// adminUser is the token-file identity every client of the control plane
// uses. Its group system:masters bypasses authorization, so neither the
// tests nor the components need RBAC set up first.
const adminUser = "ogx-test-admin"

// Client rate limits. client-go's defaults (5 QPS, burst 10) throttle tests
// and controllers that create many objects; the apiserver here is private.
const (
	clientQPS   = 200
	clientBurst = 400
)

// newAdminConfig returns a client configuration for the admin identity that
// verifies the apiserver against the control plane's CA.
func newAdminConfig(host string, caPEM []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		QPS:             clientQPS,
		Burst:           clientBurst,
	}
}

// writeKubeconfig writes cfg as a self-contained kubeconfig (CA and token
// inline) for the components, and for humans running kubectl against a
// control plane kept for debugging.
func writeKubeconfig(path string, cfg *rest.Config) error {
	const name = "ogx-test"
	kc := clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{
			name: {Server: cfg.Host, CertificateAuthorityData: cfg.CAData},
		},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{
			name: {Token: cfg.BearerToken},
		},
		Contexts: map[string]*clientcmdapi.Context{
			name: {Cluster: name, AuthInfo: name, Namespace: "default"},
		},
		CurrentContext: name,
	}
	if err := clientcmd.WriteToFile(kc, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}
