package framework

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"

	"k8s.io/client-go/util/keyutil"

	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// servingPair makes the control plane's own CA and the API server's serving
// certificate. The apiserver trusts the CA for client certificates and
// clients trust it for the serving certificate, so no system trust store or
// shared test CA is involved; every control plane makes fresh ones.
func servingPair() (ca *testcerts.CA, serving *testcerts.Pair, err error) {
	if ca, err = testcerts.NewCA("ogx-test-ca"); err != nil {
		return nil, nil, err
	}
	serving, err = ca.Issue(testcerts.Leaf{
		CommonName: APIServer,
		DNSNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		return nil, nil, err
	}
	return ca, serving, nil
}

// newServiceAccountKey returns an RSA key pair in PEM: the private key signs
// service-account tokens (apiserver TokenRequest, controller-manager token
// controller) and the public key verifies them. RSA because it is what every
// Kubernetes component and client accepts for service-account tokens; the
// private key is written with client-go's keyutil, whose reader is the one
// both components load it with.
func newServiceAccountKey() (privatePEM, publicPEM []byte, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("generating service-account key: %w", err)
	}
	privatePEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding service-account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, nil, fmt.Errorf("encoding service-account public key: %w", err)
	}
	return privatePEM, pem.EncodeToMemory(&pem.Block{Type: keyutil.PublicKeyBlockType, Bytes: pubDER}), nil
}

// randomToken returns a 256-bit random hex string for the admin bearer token.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
