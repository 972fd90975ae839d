package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/klog/v2"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1/validation"
)

const (
	// WebhookName is the name of the webhook entry in the
	// ValidatingWebhookConfiguration. The API server puts it in front of
	// every denial: `admission webhook "vogxserver.kb.io" denied the
	// request: ...`. It is upstream's name, kept so messages read the same.
	WebhookName = "vogxserver.kb.io"

	// ValidatePath is the URL path of the OGXServer validating webhook.
	ValidatePath = "/validate-ogx-io-v1beta1-ogxserver"

	// MaxRequestBytes bounds an AdmissionReview request body. The API server
	// never sends objects above its own 3 MiB request limit (etcd's default
	// value size is 1.5 MiB), so anything larger is not a real review.
	MaxRequestBytes = 3 << 20

	// DefaultMaxInFlight bounds the reviews read and answered at once: each
	// may hold a few times MaxRequestBytes while it is decoded, so the cap
	// is what bounds the memory a flood of large bodies can take. A
	// review of a real object takes well under a millisecond, so a burst
	// of creates waits for a slot (DefaultInFlightWait) rather than fails.
	DefaultMaxInFlight = 4

	// DefaultInFlightWait is how long a request waits for a slot before
	// it is answered 429; it waits before its body is read.
	DefaultInFlightWait = time.Second

	// DefaultMaxInFlightBytes bounds the request bodies over 64 KiB (by
	// their declared Content-Length, MaxRequestBytes when none is declared) read and
	// answered at once: one body of the largest size, since each is
	// decoded into a copy or two. With four slots alone a flood of 3 MiB
	// bodies took a replica from 44 to 99 MiB of RSS (test/faults,
	// TestAdmissionFloodBoundsMemory). Real reviews are a few KiB and are
	// not charged, so a slow sender of a large body cannot hold them up.
	DefaultMaxInFlightBytes = MaxRequestBytes
)

var (
	admissionReviewGVK = admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
	ogxServerGVK       = ogxv1beta1.SchemeGroupVersion.WithKind("OGXServer")
	ogxServerGK        = ogxServerGVK.GroupKind()
)

// Review is what the handler reports about one answered AdmissionReview, for
// metrics and tests. Malformed HTTP requests (answered with HTTP 400 and no
// review) are not reported.
type Review struct {
	// Operation is the request's operation (CREATE, UPDATE, ...).
	Operation admissionv1.Operation
	// Allowed is the answer.
	Allowed bool
	// Code is response.status.code of a denial (400, 422 or 500); 0 when
	// allowed.
	Code int32
	// Duration is the time from reading the request to writing the answer.
	Duration time.Duration
}

// HandlerOptions configures NewHandler. The zero value is ready to use.
type HandlerOptions struct {
	// Observe, when set, is called once per answered review, after the
	// response is written. It must be safe for concurrent use and fast.
	Observe func(Review)

	// MaxInFlight and InFlightWait bound the reviews read and answered at
	// once and how long one more waits for a slot before a 429; zero means
	// DefaultMaxInFlight and DefaultInFlightWait.
	MaxInFlight  int
	InFlightWait time.Duration
	// MaxInFlightBytes bounds the bodies in flight; zero means
	// DefaultMaxInFlightBytes. Values below MaxRequestBytes are raised to
	// it, so that every acceptable body can be read.
	MaxInFlightBytes int64
	// BodyTimeout bounds the reading of a body once its review holds a
	// slot; zero means DefaultBodyTimeout.
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is how long a review in a slot may take to send its
// body. The API server sends a review at once and gives up on the webhook
// after its timeoutSeconds (10 s by default), so a body still arriving
// after 5 s is not the API server's: a slow sender holds a slot, and the
// byte budget, for at most this long instead of the listener's whole read
// timeout.
const DefaultBodyTimeout = 5 * time.Second

// NewHandler returns the admission HTTP handler. It serves
//
//   - POST ValidatePath: an admission.k8s.io/v1 AdmissionReview for an
//     ogx.io/v1beta1 OGXServer, answered as docs/admission.md (Request
//     handling, Denials) describes;
//
// and 404 for every other path, /healthz included: the admission port is
// reachable by the API server and whatever else the network allows, so it
// carries the webhook and nothing else; liveness and readiness live on the
// health listener (--health-probe-bind-address). The handler makes no API
// calls; it logs with the logger of the request context (klog.FromContext).
func NewHandler(opts HandlerOptions) http.Handler {
	h := newHandler(opts)
	mux := http.NewServeMux()
	mux.HandleFunc(ValidatePath, h.serveValidate)
	mux.HandleFunc("/", http.NotFound)
	return mux
}

// newHandler fills in opts' defaults.
func newHandler(opts HandlerOptions) *handler {
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.InFlightWait <= 0 {
		opts.InFlightWait = DefaultInFlightWait
	}
	if opts.MaxInFlightBytes <= 0 {
		opts.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	return &handler{observe: opts.Observe, validate: validation.Validate, bodyTimeout: opts.BodyTimeout,
		slots: make(chan struct{}, opts.MaxInFlight), wait: opts.InFlightWait,
		bytes: semaphore.NewWeighted(max(opts.MaxInFlightBytes, MaxRequestBytes))}
}

type handler struct {
	observe  func(Review)
	validate func(*ogxv1beta1.OGXServer) field.ErrorList
	// slots holds a token per review being read or answered.
	slots chan struct{}
	// bytes holds the charge (bodyCharge) of each review in a slot.
	bytes       *semaphore.Weighted
	wait        time.Duration
	bodyTimeout time.Duration
}

// acquire waits up to h.wait for a slot and the body's charge; release
// gives both back.
func (h *handler) acquire(ctx context.Context, charge int64) bool {
	ctx, cancel := context.WithTimeout(ctx, h.wait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	// A zero charge would still queue behind a waiting large body.
	if charge == 0 {
		return true
	}
	if err := h.bytes.Acquire(ctx, charge); err != nil {
		<-h.slots
		return false
	}
	return true
}

func (h *handler) release(charge int64) {
	h.bytes.Release(charge)
	<-h.slots
}

// badRequest is a request that is not an AdmissionReview call at all; it is
// answered with an HTTP error and no review.
type badRequest struct {
	code int
	msg  string
}

func (e *badRequest) Error() string { return e.msg }

func (h *handler) serveValidate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	logger := klog.FromContext(r.Context())
	if r.ContentLength > MaxRequestBytes {
		// Refused before a slot is taken or a byte read.
		http.Error(w, tooLarge, http.StatusBadRequest)
		return
	}
	charge := bodyCharge(r)
	if !h.acquire(r.Context(), charge) {
		logger.V(2).Info("Refusing an admission request: too many in flight", "remoteAddr", r.RemoteAddr)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many admission reviews in flight", http.StatusTooManyRequests)
		return
	}
	defer h.release(charge)
	// A listener that cannot set deadlines (a test's recorder) keeps its own.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.bodyTimeout))

	req, err := readReview(w, r)
	if err != nil {
		var bad *badRequest
		if !errors.As(err, &bad) {
			bad = &badRequest{code: http.StatusBadRequest, msg: err.Error()}
		}
		logger.V(2).Info("Rejecting malformed admission request", "remoteAddr", r.RemoteAddr, "reason", bad.msg)
		http.Error(w, bad.msg, bad.code)
		return
	}

	logger = logger.WithValues("uid", req.UID, "operation", req.Operation,
		"ogxserver", klog.KRef(req.Namespace, req.Name))
	resp := h.review(logger, req)
	resp.UID = req.UID
	h.answer(w, logger, req, resp, start)
}

// answer writes resp as the AdmissionReview answer to req and reports it.
func (h *handler) answer(w http.ResponseWriter, logger klog.Logger, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse, start time.Time) {
	body, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionReviewGVK.GroupVersion().String(), Kind: admissionReviewGVK.Kind},
		Response: resp,
	})
	if err != nil {
		// Cannot happen with these types; answer as a failed call.
		logger.Error(err, "Encoding AdmissionReview response")
		http.Error(w, "encoding response failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body); err != nil {
		logger.V(2).Info("Writing AdmissionReview response failed", "err", err)
	}

	review := Review{Operation: req.Operation, Allowed: resp.Allowed, Duration: time.Since(start)}
	if resp.Result != nil && !resp.Allowed {
		review.Code = resp.Result.Code
	}
	if resp.Allowed {
		logger.V(4).Info("Admitted", "duration", review.Duration)
	} else {
		logger.V(2).Info("Denied", "code", review.Code, "message", resp.Result.Message, "duration", review.Duration)
	}
	if h.observe != nil {
		h.observe(review)
	}
}

// review decides one well-formed request. It never panics: a panic in the
// validator is logged and answered as an internal error, so the API server
// gets a denial (the failure policy is Fail anyway) instead of a dropped
// connection.
func (h *handler) review(logger klog.Logger, req *admissionv1.AdmissionRequest) (resp *admissionv1.AdmissionResponse) {
	defer func() {
		if p := recover(); p != nil {
			logger.Error(fmt.Errorf("panic: %v", p), "Validating OGXServer panicked")
			resp = deny(&metav1.Status{
				Status:  metav1.StatusFailure,
				Code:    http.StatusInternalServerError,
				Reason:  metav1.StatusReasonInternalError,
				Message: "internal error while validating the object",
			})
		}
	}()

	switch req.Operation {
	case admissionv1.Delete, admissionv1.Connect:
		return allow()
	case admissionv1.Create, admissionv1.Update:
	default:
		return badReview(fmt.Sprintf("unsupported operation %q", req.Operation))
	}

	if req.Kind.Kind != "" && schema.GroupVersionKind(req.Kind) != ogxServerGVK {
		return badReview(fmt.Sprintf("expected a request for %s, got %s", gvkString(ogxServerGVK), gvkString(schema.GroupVersionKind(req.Kind))))
	}
	obj, err := decodeOGXServer(req.Object.Raw)
	if err != nil {
		return badReview(err.Error())
	}
	if req.Operation == admissionv1.Update && obj.DeletionTimestamp != nil {
		// Removing finalizers from a terminating object must never be
		// blocked, whatever the object holds.
		return allow()
	}
	name := obj.Name
	if name == "" {
		name = req.Name
	}
	if errs := h.validate(obj); len(errs) > 0 {
		status := apierrors.NewInvalid(ogxServerGK, name, errs).ErrStatus
		// The API server prefixes the webhook name; the message is the bare
		// aggregated field-error text (docs/admission.md, Denials).
		status.Message = errs.ToAggregate().Error()
		return deny(&status)
	}
	return allow()
}

// decodeOGXServer decodes an admitted object and checks that it is an
// ogx.io/v1beta1 OGXServer.
func decodeOGXServer(raw []byte) (*ogxv1beta1.OGXServer, error) {
	if len(raw) == 0 {
		return nil, errors.New("request has no object")
	}
	obj := &ogxv1beta1.OGXServer{}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decoding object as %s: %v", gvkString(ogxServerGVK), err)
	}
	if gvk := obj.GroupVersionKind(); gvk != ogxServerGVK {
		return nil, fmt.Errorf("expected object of %s, got apiVersion %q kind %q", gvkString(ogxServerGVK), obj.APIVersion, obj.Kind)
	}
	return obj, nil
}

func gvkString(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + " " + gvk.Kind
}

func allow() *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}

func deny(status *metav1.Status) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: false, Result: status}
}

// badReview denies a well-formed review whose object cannot be validated.
func badReview(msg string) *admissionv1.AdmissionResponse {
	status := apierrors.NewBadRequest(msg).ErrStatus
	return deny(&status)
}
