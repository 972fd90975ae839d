package resolve

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ogx-k8s/ogx-controller/pkg/testcerts"
)

// testCert returns a freshly issued certificate as PEM, plus its private
// key as PEM (a block AssembleCABundle must skip). sans adds DNS names to
// make the certificate large.
func testCert(t *testing.T, cn string, sans ...string) (certPEM, keyPEM string) {
	t.Helper()
	ca, err := testcerts.NewCA(cn + "-ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(testcerts.Leaf{CommonName: cn, DNSNames: sans})
	if err != nil {
		t.Fatal(err)
	}
	return string(p.CertPEM), string(p.KeyPEM)
}

func TestAssembleCABundle(t *testing.T) {
	certA, keyA := testCert(t, "a")
	certB, _ := testCert(t, "b")
	certC, _ := testCert(t, "c")
	certD, _ := testCert(t, "d")

	badDER := []byte("definitely not DER")
	_, parseErr := x509.ParseCertificate(badDER)
	badCert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: badDER}))
	withHeaders := strings.Replace(certB, "-----BEGIN CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n", 1)

	cases := []struct {
		name      string
		sources   []CASource
		bundle    string
		count     int
		warnings  []string
		err       string
		explicitN int
	}{
		{name: "no sources", bundle: "", count: 0},
		{name: "empty and whitespace-only keys contribute nothing",
			sources: []CASource{{Key: "empty", Explicit: true}, {Key: "ws", Data: " \n\t\n", Explicit: true}, {Key: "auto-ws", Data: "\n"}},
			bundle:  "", count: 0},
		{name: "one certificate",
			sources: []CASource{{Key: "ca.crt", Data: certA, Explicit: true}},
			bundle:  certA, count: 1},
		{name: "certificates joined with a newline, in source order",
			sources: []CASource{
				{Key: "second", Data: certB, Explicit: true},
				{Key: "first", Data: certA + certC, Explicit: true},
			},
			bundle: certB + "\n" + certA + "\n" + certC, count: 3},
		{name: "non-CERTIFICATE blocks and text between blocks skipped",
			sources: []CASource{{Key: "mixed", Data: "comment\n" + keyA + certA + "trailing text\n", Explicit: true}},
			bundle:  certA, count: 1},
		{name: "PEM headers dropped by re-encoding",
			sources: []CASource{{Key: "h", Data: withHeaders, Explicit: true}},
			bundle:  certB, count: 1},
		{name: "explicit key without certificates",
			sources: []CASource{{Key: "only-key", Data: keyA, Explicit: true}},
			err:     "failed to find valid certificates in CA bundle key 'only-key'"},
		{name: "explicit key with garbage",
			sources: []CASource{{Key: "junk", Data: "hello", Explicit: true}},
			err:     "failed to find valid certificates in CA bundle key 'junk'"},
		{name: "explicit key with a bad certificate",
			sources: []CASource{{Key: "ok", Data: certA, Explicit: true}, {Key: "bad", Data: certB + badCert, Explicit: true}},
			err:     "failed to parse X.509 certificate from key 'bad': " + parseErr.Error()},
		{name: "auto-detected bad keys skipped with warnings",
			sources: append([]CASource{{Key: "explicit", Data: certA, Explicit: true}}, TrustedCABundleSources(map[string]string{
				"z-good":       certD,
				"b-bad":        badCert,
				"a-good":       certC,
				"c-keyonly":    keyA,
				"d-empty":      "",
				"e-whitespace": "  ",
			})...),
			bundle: certA + "\n" + certC + "\n" + certD, count: 3,
			warnings: []string{
				"failed to parse X.509 certificate from key 'b-bad': " + parseErr.Error(),
				"failed to find valid certificates in CA bundle key 'c-keyonly'",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bundle, count, warnings, err := AssembleCABundle(c.sources)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.bundle, bundle); d != "" {
				t.Errorf("bundle (-want +got):\n%s", d)
			}
			if count != c.count {
				t.Errorf("count = %d, want %d", count, c.count)
			}
			var ws []string
			for _, w := range warnings {
				ws = append(ws, w.Error())
			}
			if d := cmp.Diff(c.warnings, ws); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestAssembleCABundleLimits(t *testing.T) {
	small, _ := testCert(t, "small")
	t.Run("1000 certificates are fine", func(t *testing.T) {
		_, n, _, err := AssembleCABundle([]CASource{{Key: "k", Data: strings.Repeat(small, 1000), Explicit: true}})
		if err != nil || n != 1000 {
			t.Fatalf("n=%d err=%v", n, err)
		}
	})
	t.Run("more than 1000 certificates", func(t *testing.T) {
		// Split across an explicit and an auto-detected source: the limit
		// applies to the whole bundle, whatever the origin.
		_, _, _, err := AssembleCABundle([]CASource{
			{Key: "k", Data: strings.Repeat(small, 600), Explicit: true},
			{Key: "auto", Data: strings.Repeat(small, 401)},
		})
		want := "failed to process CA bundle: contains more than 1000 certificates (maximum allowed)"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v, want %q", err, want)
		}
	})
	t.Run("more than 1 MiB", func(t *testing.T) {
		var sans []string
		for i := range 60 {
			sans = append(sans, fmt.Sprintf("host-%02d.a-fairly-long-domain-name.example.com", i))
		}
		big, _ := testCert(t, "big", sans...)
		per := len(big) + 1
		n := MaxCABundleBytes/per + 1
		if n > MaxCABundleCertificates {
			t.Fatalf("test certificate too small (%d bytes): %d certificates needed", len(big), n)
		}
		_, _, _, err := AssembleCABundle([]CASource{{Key: "k", Data: strings.Repeat(big, n), Explicit: true}})
		want := "failed to process CA bundle: total size exceeds maximum allowed size of 1048576 bytes"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v, want %q", err, want)
		}
		bundle, _, _, err := AssembleCABundle([]CASource{{Key: "k", Data: strings.Repeat(big, n-1), Explicit: true}})
		if err != nil || len(bundle) > MaxCABundleBytes {
			t.Fatalf("%d certificates: len=%d err=%v", n-1, len(bundle), err)
		}
	})
}
