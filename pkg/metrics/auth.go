package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

const (
	// AuthnCacheTTL is how long a TokenReview answer (authenticated or
	// not) is reused for the same token.
	AuthnCacheTTL = 2 * time.Minute
	// AllowCacheTTL and DenyCacheTTL are how long a SubjectAccessReview
	// answer is reused for the same user.
	AllowCacheTTL = 5 * time.Minute
	DenyCacheTTL  = 30 * time.Second

	// DefaultCacheSize bounds each decision cache (least recently used
	// entries are dropped first).
	DefaultCacheSize = 1024

	// DefaultReviewsInFlight bounds the TokenReviews and
	// SubjectAccessReviews waiting or running at once; a request that would
	// need one more is answered 503 at once (see reviewer.inflight).
	DefaultReviewsInFlight = 8

	// reviewTimeout bounds one TokenReview or SubjectAccessReview call.
	reviewTimeout = 10 * time.Second
)

// authnDecision is a cached TokenReview answer.
type authnDecision struct {
	authenticated bool
	user          authenticationv1.UserInfo
}

// authzDecision is a cached SubjectAccessReview answer.
type authzDecision struct {
	allowed bool
	reason  string
}

// errBusy: as many reviews as allowed are in flight.
var errBusy = errors.New("too many reviews in flight")

// reviewer authenticates bearer tokens with TokenReviews and authorises
// their users for GET /metrics with SubjectAccessReviews, caching both.
// Errors calling the API are never cached.
type reviewer struct {
	kube  kubernetes.Interface
	authn *cache.LRUExpireCache // sha256(token) → authnDecision
	authz *cache.LRUExpireCache // userKey → authzDecision
	// inflight holds a token per review waiting for or running on kube.
	// A caller looping on new tokens misses the cache every time; with
	// kube's rate limiter alone its requests would queue without bound,
	// each holding a connection and a goroutine. Beyond the cap it gets a
	// fast 503 instead, and a cached decision is still served.
	inflight chan struct{}
}

func newReviewer(kube kubernetes.Interface, clk clock.PassiveClock, size, inflight int) *reviewer {
	if size <= 0 {
		size = DefaultCacheSize
	}
	if inflight <= 0 {
		inflight = DefaultReviewsInFlight
	}
	return &reviewer{
		kube:     kube,
		authn:    cache.NewLRUExpireCacheWithClock(size, clk),
		authz:    cache.NewLRUExpireCacheWithClock(size, clk),
		inflight: make(chan struct{}, inflight),
	}
}

// acquire takes an in-flight slot without waiting; release gives it back.
func (r *reviewer) acquire() error {
	select {
	case r.inflight <- struct{}{}:
		return nil
	default:
		return errBusy
	}
}

func (r *reviewer) release() { <-r.inflight }

// authenticate returns the token's user, or authenticated=false for a token
// the API server rejects.
func (r *reviewer) authenticate(ctx context.Context, token string) (authnDecision, error) {
	key := sha256.Sum256([]byte(token))
	if d, ok := r.authn.Get(key); ok {
		return d.(authnDecision), nil
	}
	if err := r.acquire(); err != nil {
		return authnDecision{}, err
	}
	defer r.release()
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	tr, err := r.kube.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token},
	}, metav1.CreateOptions{})
	if err != nil {
		return authnDecision{}, fmt.Errorf("TokenReview: %w", err)
	}
	d := authnDecision{authenticated: tr.Status.Authenticated && tr.Status.User.Username != ""}
	if d.authenticated {
		d.user = tr.Status.User
	}
	r.authn.Add(key, d, AuthnCacheTTL)
	return d, nil
}

// authorize asks whether user may get the non-resource URL /metrics.
func (r *reviewer) authorize(ctx context.Context, user authenticationv1.UserInfo) (authzDecision, error) {
	key := userKey(user)
	if d, ok := r.authz.Get(key); ok {
		return d.(authzDecision), nil
	}
	if err := r.acquire(); err != nil {
		return authzDecision{}, err
	}
	defer r.release()
	var extra map[string]authorizationv1.ExtraValue
	if len(user.Extra) > 0 {
		extra = make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			extra[k] = authorizationv1.ExtraValue(slices.Clone(v))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	sar, err := r.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   user.Username,
			UID:    user.UID,
			Groups: slices.Clone(user.Groups),
			Extra:  extra,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{
				Path: MetricsPath,
				Verb: "get",
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return authzDecision{}, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	d := authzDecision{allowed: sar.Status.Allowed && !sar.Status.Denied, reason: sar.Status.Reason}
	ttl := DenyCacheTTL
	if d.allowed {
		ttl = AllowCacheTTL
	}
	r.authz.Add(key, d, ttl)
	return d, nil
}

// userKey identifies everything a SubjectAccessReview decision may depend
// on: name, UID, groups (order-insensitive) and extra.
func userKey(u authenticationv1.UserInfo) [sha256.Size]byte {
	groups := slices.Clone(u.Groups)
	slices.Sort(groups)
	// encoding/json writes map keys sorted, so equal users encode equally.
	b, _ := json.Marshal(struct {
		Name   string                                 `json:"n"`
		UID    string                                 `json:"u"`
		Groups []string                               `json:"g"`
		Extra  map[string]authenticationv1.ExtraValue `json:"e"`
	}{u.Username, u.UID, groups, u.Extra})
	return sha256.Sum256(b)
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}

// protect puts authentication and authorisation in front of next.
func (r *reviewer) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		logger := klog.FromContext(req.Context())
		token, ok := bearerToken(req)
		if !ok {
			unauthorized(w)
			return
		}
		authn, err := r.authenticate(req.Context(), token)
		if errors.Is(err, errBusy) {
			busy(w)
			return
		}
		if err != nil {
			logger.Error(err, "Cannot authenticate a metrics request", "remote", req.RemoteAddr)
			http.Error(w, "Internal Server Error: authentication failed", http.StatusInternalServerError)
			return
		}
		if !authn.authenticated {
			logger.V(2).Info("Rejected a metrics request with an invalid token", "remote", req.RemoteAddr)
			unauthorized(w)
			return
		}
		authz, err := r.authorize(req.Context(), authn.user)
		if errors.Is(err, errBusy) {
			busy(w)
			return
		}
		if err != nil {
			logger.Error(err, "Cannot authorize a metrics request", "user", authn.user.Username, "remote", req.RemoteAddr)
			http.Error(w, "Internal Server Error: authorization failed", http.StatusInternalServerError)
			return
		}
		if !authz.allowed {
			logger.V(2).Info("Forbade a metrics request", "user", authn.user.Username, "reason", authz.reason,
				"remote", req.RemoteAddr)
			http.Error(w, fmt.Sprintf("Forbidden: user %q may not get %s", authn.user.Username, MetricsPath),
				http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// busy answers a request whose review cannot start now.
func busy(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Service Unavailable: too many reviews in flight", http.StatusServiceUnavailable)
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="ogx-controller-metrics"`)
	http.Error(w, "Unauthorized", http.StatusUnauthorized)
}
