package resolve

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sort"
	"strings"
)

// Limits of the assembled CA bundle (docs/children.md, CA bundle ConfigMap).
// The size limit is the API server's limit on a ConfigMap's data: a larger
// bundle could never be written. The count limit bounds the work of every TLS
// client in the pod.
const (
	MaxCABundleBytes        = 1 << 20
	MaxCABundleCertificates = 1000
)

// CASource is one ConfigMap key that contributes certificates to the bundle.
type CASource struct {
	// Key is the data key, named in error messages.
	Key string
	// Data is the key's content.
	Data string
	// Explicit marks a spec.tls.trust.caCertificates reference: its errors are
	// user errors. Auto-detected keys (odh-trusted-ca-bundle) are skipped on
	// error instead, because the user never asked for them.
	Explicit bool
}

// TrustedCABundleSources turns the data of the auto-detected
// odh-trusted-ca-bundle ConfigMap into sources in sorted key order, so the
// same ConfigMap always gives the same bundle bytes and hash (upstream
// iterated the map, which rolled pods at random).
func TrustedCABundleSources(data map[string]string) []CASource {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]CASource, 0, len(keys))
	for _, k := range keys {
		out = append(out, CASource{Key: k, Data: data[k]})
	}
	return out
}

// AssembleCABundle builds ca-bundle.crt from the sources in the given order
// (explicit references in spec order first, then the sorted auto-detected
// keys). Each key is decoded PEM block by PEM block; blocks that are not
// CERTIFICATE (private keys, public keys) are skipped, every certificate must
// parse as X.509 and is re-encoded, which drops PEM headers and any text
// between blocks so that nothing but certificates reaches the server.
//
// It returns the PEM certificates joined with "\n" and their number; an empty
// bundle (count 0) means no bundle at all, not an error. An error of an
// explicit source, or a bundle over the limits, is returned as err (a user
// error). An error of an auto-detected key skips that key and is returned in
// warnings for the caller to log.
func AssembleCABundle(sources []CASource) (bundle string, count int, warnings []error, err error) {
	var certs []string
	for _, src := range sources {
		got, kerr := extractCertificates(src.Key, src.Data)
		if kerr != nil {
			if src.Explicit {
				return "", 0, warnings, kerr
			}
			warnings = append(warnings, kerr)
			continue
		}
		certs = append(certs, got...)
		if len(certs) > MaxCABundleCertificates {
			return "", 0, warnings, fmt.Errorf("failed to process CA bundle: contains more than %d certificates (maximum allowed)", MaxCABundleCertificates)
		}
	}
	bundle = strings.Join(certs, "\n")
	if len(bundle) > MaxCABundleBytes {
		return "", 0, warnings, fmt.Errorf("failed to process CA bundle: total size exceeds maximum allowed size of %d bytes", MaxCABundleBytes)
	}
	return bundle, len(certs), warnings, nil
}

// extractCertificates applies the per-key rule of docs/children.md, CA bundle
// ConfigMap. Empty or whitespace-only data contributes nothing (a trusted-CA
// ConfigMap without custom CAs is normal); other data must yield at least one
// certificate.
func extractCertificates(key, data string) ([]string, error) {
	rest := []byte(data)
	if len(bytes.TrimSpace(rest)) == 0 {
		return nil, nil
	}
	var certs []string
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return nil, fmt.Errorf("failed to parse X.509 certificate from key '%s': %w", key, err)
		}
		certs = append(certs, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes})))
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("failed to find valid certificates in CA bundle key '%s'", key)
	}
	return certs, nil
}
