package webhookcerts

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ogx-k8s/ogx-controller/pkg/certgen"
)

func TestFirstStartCreatesValidSecret(t *testing.T) {
	f := newFixture(t)
	loopback := net.IPv4(127, 0, 0, 1)
	f.m = f.manager(t, Options{ExtraIPs: []net.IP{loopback}})
	s := f.ensure(t, true)

	w := f.writes()
	if len(w) != 1 || w[0].GetVerb() != "create" {
		t.Fatalf("writes = %v, want one create", w)
	}
	if s.Type != corev1.SecretTypeTLS || s.Labels[ManagedByLabel] != FieldManager {
		t.Errorf("type %q, labels %v", s.Type, s.Labels)
	}
	if len(s.Data) != 4 {
		t.Errorf("data keys = %d, want 4", len(s.Data))
	}
	verifyChain(t, s.Data, s.Data[CACertKey], start, loopback)

	p := parseSecret(t, s.Data)
	if len(p.cas) != 1 {
		t.Fatalf("ca.crt holds %d certificates, want 1", len(p.cas))
	}
	ca := p.current(t)
	if !ca.IsCA || ca.CheckSignatureFrom(ca) != nil {
		t.Error("the CA is not a self-signed CA")
	}
	if got := ca.NotAfter.Sub(start); got != CALifetime {
		t.Errorf("CA valid for %v after now, want %v", got, CALifetime)
	}
	if got := p.serving.NotAfter.Sub(start); got != ServingLifetime {
		t.Errorf("serving certificate valid for %v after now, want %v", got, ServingLifetime)
	}
	if p.serving.IsCA || p.serving.Subject.CommonName != testSvc+"."+testNS+".svc" {
		t.Errorf("serving certificate: CA %v, CN %q", p.serving.IsCA, p.serving.Subject.CommonName)
	}
	if bytes.Contains(s.Data[TLSCertKey], []byte("PRIVATE KEY")) || bytes.Contains(s.Data[CACertKey], []byte("PRIVATE KEY")) {
		t.Error("a certificate key holds a private key")
	}
}

func TestSteadyStateWritesNothing(t *testing.T) {
	f := newFixture(t, webhookConfiguration())
	ctx := f.ctx
	f.ensure(t, true)
	if _, err := f.m.SyncCABundle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.WriteFiles(ctx); err != nil {
		t.Fatal(err)
	}
	before := f.secret(t)
	f.kube.ClearActions()

	// Repeated rounds, also later in the certificates' lives (but before
	// any renewal is due), write nothing.
	for _, at := range []time.Duration{0, time.Hour, 30 * 24 * time.Hour, 200 * 24 * time.Hour} {
		f.clock.Set(start.Add(at))
		f.ensure(t, false)
		if changed, err := f.m.SyncCABundle(ctx); err != nil || changed {
			t.Fatalf("SyncCABundle = %v, %v; want no change", changed, err)
		}
		if changed, err := f.m.WriteFiles(ctx); err != nil || changed {
			t.Fatalf("WriteFiles = %v, %v; want no change", changed, err)
		}
	}
	f.expectNoWrites(t)
	if after := f.secret(t); !equalData(before.Data, after.Data) {
		t.Error("the Secret's data changed")
	}
}

func TestServingCertificateRenewal(t *testing.T) {
	f := newFixture(t)
	first := f.ensure(t, true)
	p1 := parseSecret(t, first.Data)

	// Two thirds of a year in, renewal is not yet due...
	f.clock.Set(start.Add(ServingLifetime * 2 / 3).Add(-time.Hour))
	f.kube.ClearActions()
	f.ensure(t, false)
	f.expectNoWrites(t)

	// ...just after, it is.
	at := start.Add(ServingLifetime * 2 / 3).Add(time.Hour)
	f.clock.Set(at)
	f.kube.ClearActions()
	second := f.ensure(t, true)
	if w := f.writes(); len(w) != 1 || w[0].GetVerb() != "patch" {
		t.Fatalf("writes = %v, want one patch", w)
	}
	p2 := parseSecret(t, second.Data)
	if p2.serving.SerialNumber.Cmp(p1.serving.SerialNumber) == 0 {
		t.Error("the serving certificate was not reissued")
	}
	if !bytes.Equal(first.Data[CACertKey], second.Data[CACertKey]) || !bytes.Equal(first.Data[CAKeyKey], second.Data[CAKeyKey]) {
		t.Error("the CA changed with a serving renewal")
	}
	if bytes.Equal(first.Data[TLSKeyKey], second.Data[TLSKeyKey]) {
		t.Error("the serving key was reused")
	}
	verifyChain(t, second.Data, second.Data[CACertKey], at)
	// The old CA bundle (what the API server has) trusts the new pair.
	verifyChain(t, second.Data, first.Data[CACertKey], at)

	f.kube.ClearActions()
	f.ensure(t, false)
	f.expectNoWrites(t)
}

func TestExpiredServingCertificateIsReplaced(t *testing.T) {
	f := newFixture(t)
	first := f.ensure(t, true)
	at := start.Add(ServingLifetime + 24*time.Hour)
	f.clock.Set(at)
	second := f.ensure(t, true)
	if bytes.Equal(first.Data[TLSCertKey], second.Data[TLSCertKey]) || !bytes.Equal(first.Data[CAKeyKey], second.Data[CAKeyKey]) {
		t.Error("want a new serving certificate under the same CA")
	}
	verifyChain(t, second.Data, second.Data[CACertKey], at)
}

func TestCARotationKeepsTheOldCA(t *testing.T) {
	f := newFixture(t)
	first := f.ensure(t, true)
	oldCA := parseSecret(t, first.Data).current(t)

	// Six years in (CA not yet due), the serving certificate has long
	// expired: it is replaced under the same CA.
	f.clock.Set(start.Add(years(6)))
	s := f.ensure(t, true)
	if !bytes.Equal(s.Data[CACertKey], first.Data[CACertKey]) {
		t.Fatal("the CA changed before its renewal was due")
	}
	servingBefore := s.Data[TLSCertKey]

	// Past two thirds of the CA's life: step one of the rotation adds a
	// new CA and keeps the (still valid) serving certificate.
	at := start.Add(years(6.8))
	f.clock.Set(at)
	s = f.ensure(t, true)
	p := parseSecret(t, s.Data)
	if len(p.cas) != 2 {
		t.Fatalf("ca.crt holds %d certificates, want the new and the old CA", len(p.cas))
	}
	newCA := p.current(t)
	if newCA.Equal(oldCA) || !p.cas[0].Equal(newCA) || !p.cas[1].Equal(oldCA) {
		t.Fatal("ca.crt is not [new CA, old CA]")
	}
	if !bytes.Equal(s.Data[TLSCertKey], servingBefore) {
		t.Fatal("the serving certificate changed in the same write as the CA")
	}
	verifyChain(t, s.Data, s.Data[CACertKey], at)

	// Step two: the serving certificate moves to the new CA; the old CA
	// stays trusted.
	s = f.ensure(t, true)
	p = parseSecret(t, s.Data)
	if err := p.serving.CheckSignatureFrom(newCA); err != nil {
		t.Fatalf("serving certificate not signed by the new CA: %v", err)
	}
	if len(p.cas) != 2 || !p.current(t).Equal(newCA) {
		t.Fatal("the bundle changed in step two")
	}
	verifyChain(t, s.Data, s.Data[CACertKey], at)
	f.kube.ClearActions()
	f.ensure(t, false)
	f.expectNoWrites(t)

	// Once the old CA expired, it leaves the bundle.
	at = oldCA.NotAfter.Add(time.Hour)
	f.clock.Set(at)
	for range 2 {
		if _, err := f.m.EnsureSecret(f.ctx); err != nil {
			t.Fatal(err)
		}
	}
	s = f.secret(t)
	p = parseSecret(t, s.Data)
	if len(p.cas) != 1 || !p.cas[0].Equal(newCA) {
		t.Fatalf("ca.crt holds %d certificates, want only the new CA", len(p.cas))
	}
	verifyChain(t, s.Data, s.Data[CACertKey], at)
}

// TestRotationsNeverBreakTrust lets twelve years pass in monthly steps of
// the leader loop and checks after every step that the certificate a
// replica would now serve is trusted by the caBundle the API server had
// before the step, so no renewal or CA rotation ever causes a failed call.
func TestRotationsNeverBreakTrust(t *testing.T) {
	f := newFixture(t, webhookConfiguration())
	ctx := f.ctx
	step := func() {
		t.Helper()
		if _, err := f.m.EnsureSecret(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := f.m.SyncCABundle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	step()
	var cas, servings, writes int
	prev := parseSecret(t, f.secret(t).Data)
	for month := 1; month <= 12*12; month++ {
		at := start.AddDate(0, month, 0)
		f.clock.Set(at)
		trusted := f.webhookConfiguration(t).Webhooks[0].ClientConfig.CABundle
		f.kube.ClearActions()
		step()
		writes += len(f.writes())
		s := f.secret(t)
		verifyChain(t, s.Data, trusted, at)
		verifyChain(t, s.Data, s.Data[CACertKey], at)
		p := parseSecret(t, s.Data)
		if len(p.cas) > 2 {
			t.Fatalf("month %d: %d CAs in the bundle", month, len(p.cas))
		}
		if !p.current(t).Equal(prev.current(t)) {
			cas++
		}
		if !p.serving.Equal(prev.serving) {
			servings++
		}
		prev = p
	}
	// One CA rotation (at 6⅔ years) and a serving renewal about every
	// eight months.
	if cas != 1 || servings < 15 || servings > 20 {
		t.Errorf("%d CA rotations and %d serving renewals in 12 years", cas, servings)
	}
	t.Logf("12 years: %d CA rotations, %d serving renewals, %d writes", cas, servings, writes)
}

func TestDeletedSecretIsRecreated(t *testing.T) {
	f := newFixture(t)
	first := f.ensure(t, true)
	if err := f.kube.CoreV1().Secrets(testNS).Delete(f.ctx, DefaultSecretName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.kube.ClearActions()
	second := f.ensure(t, true)
	if w := f.writes(); len(w) != 1 || w[0].GetVerb() != "create" {
		t.Fatalf("writes = %v, want one create", w)
	}
	if bytes.Equal(first.Data[CAKeyKey], second.Data[CAKeyKey]) {
		t.Error("the recreated Secret has the old CA key")
	}
	verifyChain(t, second.Data, second.Data[CACertKey], start)
}

func TestCorruptedSecretIsRepaired(t *testing.T) {
	otherKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherKeyPEM, err := certgen.EncodeKey(otherKey)
	if err != nil {
		t.Fatal(err)
	}
	foreignCA, _, err := newCA(start)
	if err != nil {
		t.Fatal(err)
	}
	foreignCert, foreignKey, err := foreignCA.issue(start, "x", []string{testSvc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		corrupt func(d map[string][]byte)
		// newCA: a new CA is expected; steps: EnsureSecret calls that
		// write before the Secret is current.
		newCA bool
		steps int
	}{
		{"tls.crt garbage", func(d map[string][]byte) { d[TLSCertKey] = []byte("garbage") }, false, 1},
		{"tls.crt missing", func(d map[string][]byte) { delete(d, TLSCertKey) }, false, 1},
		{"tls.key of another certificate", func(d map[string][]byte) { d[TLSKeyKey] = otherKeyPEM }, false, 1},
		{"serving certificate of a foreign CA", func(d map[string][]byte) {
			d[TLSCertKey], d[TLSKeyKey] = foreignCert, foreignKey
		}, false, 1},
		{"serving certificate with two certificates", func(d map[string][]byte) {
			d[TLSCertKey] = append(bytes.Clone(d[TLSCertKey]), d[CACertKey]...)
		}, false, 1},
		{"ca.crt garbage", func(d map[string][]byte) {
			d[CACertKey] = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
		}, true, 1},
		// The old CA certificate is still valid and trusted: it stays in
		// the bundle, and the serving certificate moves over in a second
		// write.
		{"ca.key garbage", func(d map[string][]byte) { d[CAKeyKey] = []byte("garbage") }, true, 2},
		{"ca.key of another CA", func(d map[string][]byte) { d[CAKeyKey] = otherKeyPEM }, true, 2},
		{"everything missing", func(d map[string][]byte) { clear(d) }, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			good := f.ensure(t, true)
			data := map[string][]byte{}
			for k, v := range good.Data {
				data[k] = bytes.Clone(v)
			}
			tt.corrupt(data)
			body, err := json.Marshal(map[string]any{"data": map[string]any{
				TLSCertKey: data[TLSCertKey], TLSKeyKey: data[TLSKeyKey], CACertKey: data[CACertKey], CAKeyKey: data[CAKeyKey]}})
			if err != nil {
				t.Fatal(err)
			}
			// A nil value encodes as null, which deletes the key.
			if _, err := f.kube.CoreV1().Secrets(testNS).Patch(f.ctx, DefaultSecretName, "application/merge-patch+json", body, metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			for range tt.steps {
				f.ensure(t, true)
			}
			f.kube.ClearActions()
			s := f.ensure(t, false)
			f.expectNoWrites(t)
			verifyChain(t, s.Data, s.Data[CACertKey], start)
			if sameCA := bytes.Equal(s.Data[CAKeyKey], good.Data[CAKeyKey]); sameCA == tt.newCA {
				t.Errorf("same CA key = %v, want %v", sameCA, !tt.newCA)
			}
			if bytes.Equal(s.Data[TLSCertKey], good.Data[TLSCertKey]) {
				t.Error("the serving certificate was not reissued")
			}
		})
	}
}

func TestChangedNamesReissueTheServingCertificate(t *testing.T) {
	f := newFixture(t)
	first := f.ensure(t, true)
	ip := net.ParseIP("10.0.0.7")
	f.m = f.manager(t, Options{ExtraIPs: []net.IP{ip}})
	second := f.ensure(t, true)
	if !bytes.Equal(first.Data[CAKeyKey], second.Data[CAKeyKey]) {
		t.Error("the CA changed")
	}
	verifyChain(t, second.Data, second.Data[CACertKey], start, ip)

	f.m = f.manager(t, Options{ServiceName: "other"})
	third := f.ensure(t, true)
	if got := parseSecret(t, third.Data).serving.DNSNames; got[0] != "other" {
		t.Errorf("DNS names = %v", got)
	}
}

func TestExternallyManagedSecretIsLeftAlone(t *testing.T) {
	ca, _, err := newCA(start)
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := ca.issue(start, "cert-manager", []string{"elsewhere"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultSecretName, Namespace: testNS,
			Annotations: map[string]string{CertManagerAnnotation: "webhook"}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{TLSCertKey: crt, TLSKeyKey: key},
	}
	f := newFixture(t, webhookConfiguration(), secret)
	if _, err := f.m.EnsureSecret(f.ctx); !errors.Is(err, ErrExternallyManaged) {
		t.Errorf("EnsureSecret error = %v, want ErrExternallyManaged", err)
	}
	if _, err := f.m.SyncCABundle(f.ctx); !errors.Is(err, ErrExternallyManaged) {
		t.Errorf("SyncCABundle error = %v, want ErrExternallyManaged", err)
	}
	f.expectNoWrites(t)
	if f.webhookConfiguration(t).Webhooks[0].ClientConfig.CABundle != nil {
		t.Error("caBundle set from a cert-manager Secret")
	}
	// The replicas still serve its pair.
	if changed, err := f.m.WriteFiles(f.ctx); err != nil || !changed {
		t.Fatalf("WriteFiles = %v, %v; want a change", changed, err)
	}
	expectFiles(t, f.dir, secret)
}

func TestConflictIsRetried(t *testing.T) {
	f := newFixture(t)
	s := f.ensure(t, true)
	// The fake clientset keeps resourceVersions as given.
	s.ResourceVersion = "42"
	if _, err := f.kube.CoreV1().Secrets(testNS).Update(f.ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(start.Add(ServingLifetime))
	conflicts := 1
	f.kube.PrependReactor("patch", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, DefaultSecretName, errors.New("changed"))
		}
		return false, nil, nil
	})
	f.kube.ClearActions()
	s = f.ensure(t, true)
	if w := f.writes(); len(w) != 2 {
		t.Errorf("writes = %v, want two patches", w)
	}
	verifyChain(t, s.Data, s.Data[CACertKey], start.Add(ServingLifetime))

	// The patch carries the resourceVersion it was computed from.
	for _, a := range f.writes() {
		var body struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(a.(k8stesting.PatchAction).GetPatch(), &body); err != nil {
			t.Fatal(err)
		}
		if body.Metadata.ResourceVersion != "42" {
			t.Errorf("patch with resourceVersion %q, want the one read (42)", body.Metadata.ResourceVersion)
		}
	}
}

func equalData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
