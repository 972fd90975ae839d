package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation/validationtest"
	"k8s.io/utils/ptr"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// benchServer is a realistic object: several providers across APIs, models,
// secret references and a custom provider with settings.
func benchServer(mutate ...func(*ogxv1beta1.OGXServer)) *ogxv1beta1.OGXServer {
	return validationtest.Server(append([]func(*ogxv1beta1.OGXServer){func(s *ogxv1beta1.OGXServer) {
		s.Name = "llama-prod"
		s.Labels = map[string]string{"team": "ml", "env": "prod"}
		s.Spec.Providers = &ogxv1beta1.ProvidersSpec{
			Inference: &ogxv1beta1.InferenceProviders{Remote: &ogxv1beta1.RemoteInferenceProviders{
				Vllm: []ogxv1beta1.VLLMProvider{
					{Endpoint: "http://vllm-a:8000/v1", APIToken: ptr.To(validationtest.Key("vllm", "token"))},
					{ID: "vllm-b", Endpoint: "http://vllm-b:8000/v1"},
				},
			}},
			ToolRuntime: &ogxv1beta1.ToolRuntimeProviders{Remote: &ogxv1beta1.RemoteToolRuntimeProviders{
				Custom: []ogxv1beta1.CustomProvider{{Type: "remote::search", SecretRefs: map[string]ogxv1beta1.SecretKeyRef{"api_key": validationtest.Key("search", "key")}}},
			}},
		}
		s.Spec.Resources = &ogxv1beta1.ResourcesSpec{Models: []ogxv1beta1.ModelSpec{
			{Name: "llama-3-8b", Provider: "remote-vllm"}, {Name: "llama-3-70b", Provider: "vllm-b"},
		}}
	}}, mutate...)...)
}

// BenchmarkReview measures one review through the handler (no network, no
// TLS): decode, validate, encode.
func BenchmarkReview(b *testing.B) {
	h := NewHandler(HandlerOptions{})
	cases := map[string]*ogxv1beta1.OGXServer{
		"allowed": benchServer(),
		"denied": benchServer(func(s *ogxv1beta1.OGXServer) {
			s.Spec.Distribution.Name = ptr.To("nope")
			s.Spec.Resources.Models[0].Provider = "missing"
		}),
	}
	for name, obj := range cases {
		b.Run(name, func(b *testing.B) {
			body := reviewBody(b, request(b, admissionv1.Create, obj))
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, ValidatePath, bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d", w.Code)
				}
			}
		})
	}
}

// BenchmarkReviewLatency measures end-to-end latency over TLS through a real
// Server at a steady 200 reviews/s for 3 s (600 reviews, open loop: each
// review starts on schedule whatever the others do, as API server calls
// would). It reports the mean as ns/op and the p50, p99 and max latencies;
// one run is the whole measurement, whatever b.N is.
func BenchmarkReviewLatency(b *testing.B) {
	const (
		rate     = 200
		duration = 3 * time.Second
		total    = int(rate * duration / time.Second)
	)
	dir := filepath.Join(b.TempDir(), "certs")
	ts := &testServer{dir: dir, ca: newCA(b)}
	writeVolume(b, dir, issue(b, ts.ca).Files())
	s, err := NewServer(ServerOptions{Addr: "127.0.0.1:0", CertDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := klog.NewContext(context.Background(), klog.Background().V(10))
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Shutdown(context.Background()) }()
	ts.Server = s

	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: ts.ca.Pool(), ServerName: "127.0.0.1"},
		MaxIdleConnsPerHost: 64,
	}}
	body := reviewBody(b, request(b, admissionv1.Create, benchServer()))
	send := func() (time.Duration, error) {
		start := time.Now()
		resp, err := client.Post(ts.url(ValidatePath), "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, &httpStatusError{resp.StatusCode}
		}
		return time.Since(start), nil
	}
	// Warm up connections and the code path.
	for range 20 {
		if _, err := send(); err != nil {
			b.Fatal(err)
		}
	}

	b.ResetTimer()
	for range b.N {
		latencies := make([]time.Duration, total)
		errs := make([]error, total)
		var wg sync.WaitGroup
		tick := time.NewTicker(time.Second / rate)
		for i := range total {
			<-tick.C
			wg.Go(func() { latencies[i], errs[i] = send() })
		}
		tick.Stop()
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		slices.Sort(latencies)
		var sum time.Duration
		for _, l := range latencies {
			sum += l
		}
		pct := func(p float64) float64 { return float64(latencies[int(p*float64(total-1))].Microseconds()) / 1000 }
		b.ReportMetric(float64(sum.Nanoseconds())/float64(total), "ns/op")
		b.ReportMetric(pct(0.50), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(float64(latencies[total-1].Microseconds())/1000, "max-ms")
	}
}

type httpStatusError struct{ code int }

func (e *httpStatusError) Error() string { return http.StatusText(e.code) }
