package oci

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// Source is status.resolvedDistribution.configSource of a base read from
// image labels.
const Source = "oci-label"

// Result is a resolved base config.
type Result struct {
	// Config is the decoded base config.yaml; it goes through the same
	// parsing as a ConfigMap base.
	Config []byte
	// FileName is F, the default-config label's value.
	FileName string
	// Digest is the image's top-level manifest digest (the index digest for
	// a multi-platform image), for status.resolvedDistribution.image.
	Digest string
	// Source is always "oci-label".
	Source string
	// Warnings are W5 (platform fallback); a cached result repeats them.
	Warnings []string
}

// Resolver reads base configs from image labels. It is safe for concurrent
// use and meant to live for the whole process, as its cache and tokens do.
type Resolver struct {
	client       *http.Client
	platform     platform
	platformText string
	insecure     map[string]bool
	tokenHosts   map[string]bool
	allowed      []string
	detailed     bool
	timeout      time.Duration
	now          func() time.Time
	cache        *lru

	mu         sync.Mutex
	tokens     map[tokenKey]cachedToken
	challenges map[string]tokenKey // registry/repo -> last token key
	plainHosts map[string]bool     // hosts answered over HTTP
}

// NewResolver validates the options and builds a Resolver.
func NewResolver(opts Options) (*Resolver, error) {
	text := opts.Platform
	if text == "" {
		text = DefaultPlatform
	}
	p, err := parsePlatform(text)
	if err != nil {
		return nil, err
	}
	client := opts.Client
	if client == nil {
		client = NewHTTPClient(opts.RootCAs)
	}
	r := &Resolver{
		platform: p, platformText: p.String(), timeout: opts.Timeout, now: opts.Now,
		insecure: map[string]bool{}, cache: newLRU(cacheSize, cacheBytes),
		tokens: map[tokenKey]cachedToken{}, challenges: map[string]tokenKey{}, plainHosts: map[string]bool{},
	}
	if r.timeout <= 0 {
		r.timeout = DefaultTimeout
	}
	if r.now == nil {
		r.now = time.Now
	}
	if opts.TokenHosts == nil {
		opts.TokenHosts = []string{DefaultTokenHost}
	}
	r.tokenHosts = map[string]bool{}
	for _, h := range opts.TokenHosts {
		if hostName(h) != strings.ToLower(h) {
			return nil, fmt.Errorf("token host %q: give a host name without port or brackets", h)
		}
		r.tokenHosts[hostName(h)] = true
	}
	for _, h := range opts.InsecureHosts {
		r.insecure[strings.ToLower(h)] = true
	}
	for _, h := range opts.AllowedRegistries {
		pattern := strings.ToLower(h)
		if pattern == "" || strings.ContainsAny(pattern, "/@ ") || strings.Contains(strings.TrimPrefix(pattern, "*."), "*") {
			return nil, fmt.Errorf("allowed registry %q: give a registry as an image names it (quay.io, host:port) or *.domain", h)
		}
		r.allowed = append(r.allowed, pattern)
	}
	r.detailed = opts.DetailedErrors
	c := *client
	if c.CheckRedirect == nil {
		c.CheckRedirect = r.checkRedirect
	}
	r.client = &c
	return r, nil
}

// Resolve returns the base config carried in the labels of image. Every
// error is an *UnavailableError worded for the user; its full text is
// logged at -v=2.
func (r *Resolver) Resolve(ctx context.Context, image string) (*Result, error) {
	res, err := r.resolve(ctx, image)
	if err != nil {
		ue := &UnavailableError{Image: image, Err: err, Detailed: r.detailed}
		klog.FromContext(ctx).V(2).Info("Base config not resolved", "image", image, "err", ue.Full())
		return nil, ue
	}
	return res, nil
}

// registryAllowed reports whether the registry domain may be contacted.
func (r *Resolver) registryAllowed(registry string) bool {
	if len(r.allowed) == 0 {
		return true
	}
	registry = strings.ToLower(registry)
	for _, p := range r.allowed {
		if p == registry || (strings.HasPrefix(p, "*.") && strings.HasSuffix(registry, p[1:])) {
			return true
		}
	}
	return false
}

func (r *Resolver) resolve(ctx context.Context, image string) (*Result, error) {
	ref, err := parseReference(image)
	if err != nil {
		return nil, err
	}
	if !r.registryAllowed(ref.registry) {
		return nil, errNotAllowed(ref.registry)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	s := &session{r: r, ref: ref, ctx: ctx}
	digest := ref.digest
	var top *response
	if digest == "" {
		if digest, top, err = s.resolveTag(); err != nil {
			return nil, err
		}
	}
	key := ref.registry + "/" + ref.repo + "@" + digest + "|" + r.platformText
	if e, ok := r.cache.get(key); ok {
		return e.result(), nil
	}
	e, err := s.load(digest, top)
	if err != nil {
		return nil, err
	}
	r.cache.add(key, *e)
	return e.result(), nil
}

func (e entry) result() *Result {
	return &Result{
		Config: append([]byte(nil), e.config...), FileName: e.fileName, Digest: e.digest,
		Source: Source, Warnings: append([]string(nil), e.warnings...),
	}
}

// resolveTag turns the tag into a digest with one HEAD; without a
// Docker-Content-Digest header it GETs the manifest and hashes it, and
// returns that body so that it is not fetched twice.
func (s *session) resolveTag() (string, *response, error) {
	path := "/v2/" + s.ref.repo + "/manifests/" + s.ref.tag
	head, err := s.fetch(http.MethodHead, path, acceptManifests, 0, "")
	if err != nil {
		return "", nil, err
	}
	if d := head.header.Get("Docker-Content-Digest"); sha256Digest.MatchString(d) {
		return d, nil, nil
	}
	m, err := s.fetch(http.MethodGet, path, acceptManifests, maxManifestBody, "manifest exceeds 4 MiB")
	if err != nil {
		return "", nil, err
	}
	return digestOf(m.body), m, nil
}

// load follows digest (index, platform manifest, config blob) and decodes
// the labels.
func (s *session) load(digest string, top *response) (*entry, error) {
	m, err := s.manifest(digest, top)
	if err != nil {
		return nil, err
	}
	e := &entry{digest: digest}
	if m.isIndex {
		d, warning, err := selectPlatform(m.Manifests, s.r.platform, s.ref.raw)
		if err != nil {
			return nil, err
		}
		if warning != "" {
			e.warnings = append(e.warnings, warning)
		}
		if !sha256Digest.MatchString(d.Digest) {
			return nil, fmt.Errorf("image index %s names manifest digest %q, not a sha256 digest", s.ref.raw, d.Digest)
		}
		if m, err = s.manifest(d.Digest, nil); err != nil {
			return nil, err
		}
		if m.isIndex {
			return nil, fmt.Errorf("image index %s nests another index at %s", s.ref.raw, d.Digest)
		}
	}
	blob, err := s.fetch(http.MethodGet, "/v2/"+s.ref.repo+"/blobs/"+m.Config.Digest, "", maxConfigBody, "config blob exceeds 4 MiB")
	if err != nil {
		return nil, err
	}
	if err := verify(m.Config.Digest, blob.body); err != nil {
		return nil, err
	}
	if e.config, e.fileName, err = baseFromConfigBlob(blob.body, s.ref.raw); err != nil {
		return nil, err
	}
	return e, nil
}

// manifest fetches (unless already at hand) and verifies the manifest of
// digest.
func (s *session) manifest(digest string, have *response) (*manifest, error) {
	resp := have
	if resp == nil {
		var err error
		resp, err = s.fetch(http.MethodGet, "/v2/"+s.ref.repo+"/manifests/"+digest, acceptManifests, maxManifestBody, "manifest exceeds 4 MiB")
		if err != nil {
			return nil, err
		}
	}
	if err := verify(digest, resp.body); err != nil {
		return nil, err
	}
	return parseManifest(resp.contentType, resp.body)
}

// checkRedirect follows at most 10 redirects and never downgrades to plain
// HTTP except towards loopback or insecure hosts. Go's client itself drops
// the Authorization header when the redirect leaves the host.
func (r *Resolver) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return refuse("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "https" && !r.plainAllowed(req.URL.Host) {
		return refuse("refusing redirect to plain HTTP %s", req.URL.Redacted())
	}
	// A registry elsewhere must not reach the operator's own loopback
	// listeners through it.
	if isLoopback(req.URL.Host) && !isLoopback(via[0].URL.Host) {
		return refuse("refusing redirect to loopback %s", req.URL.Redacted())
	}
	return nil
}

// plainAllowed reports whether host may be contacted over plain HTTP.
func (r *Resolver) plainAllowed(host string) bool {
	if isLoopback(host) {
		return true
	}
	h := strings.ToLower(host)
	if r.insecure[h] {
		return true
	}
	if hn, _, err := net.SplitHostPort(h); err == nil {
		return r.insecure[hn]
	}
	return false
}

func (r *Resolver) isPlain(host string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.plainHosts[host]
}

func (r *Resolver) markPlain(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.plainHosts[host] = true
}

// rememberChallenge records which token a repository needs, so that later
// requests send a cached token up front instead of collecting a 401 first.
func (r *Resolver) rememberChallenge(ref *imageRef, key tokenKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.challenges[ref.host+"/"+ref.repo] = key
}

// tokenFor is the cached, unexpired token of the repository, or "".
func (r *Resolver) tokenFor(ref *imageRef) string {
	r.mu.Lock()
	key, ok := r.challenges[ref.host+"/"+ref.repo]
	r.mu.Unlock()
	if !ok {
		return ""
	}
	tok, _ := r.lookupToken(key)
	return tok
}

func (r *Resolver) lookupToken(key tokenKey) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tokens[key]
	if !ok || !r.now().Before(t.until) {
		return "", false
	}
	return t.token, true
}

// storeToken caches a token until 10 s before it expires.
func (r *Resolver) storeToken(key tokenKey, tok string, life time.Duration) {
	until := r.now().Add(life - tokenMargin)
	if !until.After(r.now()) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, t := range r.tokens {
		if !r.now().Before(t.until) {
			delete(r.tokens, k)
		}
	}
	r.tokens[key] = cachedToken{token: tok, until: until}
}
