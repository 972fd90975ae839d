package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// session is one resolution: one reference, one deadline.
type session struct {
	r   *Resolver
	ref *imageRef
	ctx context.Context
}

// response is a fetched body with the headers that matter.
type response struct {
	url         string
	header      http.Header
	contentType string
	body        []byte
}

// fetch sends one registry request and reads at most limit bytes of the
// body; more is the error tooBig. HEAD reads no body.
func (s *session) fetch(method, path, accept string, limit int64, tooBig string) (*response, error) {
	resp, url, err := s.send(method, path, accept)
	if err != nil {
		return nil, err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
	}()
	if err := s.status(resp.StatusCode, url); err != nil {
		return nil, err
	}
	out := &response{url: url, header: resp.Header, contentType: resp.Header.Get("Content-Type")}
	if method == http.MethodHead {
		return out, nil
	}
	if resp.ContentLength > limit {
		return nil, errors.New(tooBig)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, transportErr(url, err)
	}
	if int64(len(body)) > limit {
		return nil, errors.New(tooBig)
	}
	out.body = body
	return out, nil
}

// status maps a final status code to its error (docs/config-generation.md,
// Registry access).
func (s *session) status(code int, url string) error {
	switch {
	case code >= 200 && code <= 299:
		return nil
	case code == http.StatusNotFound:
		return fmt.Errorf("image %s not found", s.ref.raw)
	case code == http.StatusTooManyRequests:
		return fmt.Errorf("registry %s rate-limited the request", s.ref.registry)
	}
	return fmt.Errorf("unexpected HTTP %d from %s", code, url)
}

// send performs a request with the anonymous token flow: a cached token is
// sent up front; a 401 with a Bearer challenge leads to one token fetch and
// one retry; anything else that refuses is E11.
func (s *session) send(method, path, accept string) (*http.Response, string, error) {
	tok := s.r.tokenFor(s.ref)
	resp, url, err := s.attempt(method, path, accept, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, url, err
	}
	chs := parseChallenges(resp.Header.Values("WWW-Authenticate"))
	_ = resp.Body.Close()
	ch, ok := bearer(chs)
	if !ok {
		return nil, url, errAnonymous(s.ref.registry, s.ref.repo)
	}
	if tok, err = s.token(ch, tok != ""); err != nil {
		return nil, url, err
	}
	resp, url, err = s.attempt(method, path, accept, tok)
	if err != nil {
		return nil, url, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		_ = resp.Body.Close()
		return nil, url, errAnonymous(s.ref.registry, s.ref.repo)
	}
	return resp, url, nil
}

// attempt sends one request over HTTPS, or, for loopback and insecure hosts,
// over plain HTTP after an HTTPS transport failure. A host once reached over
// HTTP is contacted over HTTP next.
func (s *session) attempt(method, path, accept, token string) (*http.Response, string, error) {
	host := s.ref.host
	schemes := []string{"https"}
	if s.r.plainAllowed(host) {
		if s.r.isPlain(host) {
			schemes = []string{"http"}
		} else {
			schemes = []string{"https", "http"}
		}
	}
	var (
		url     string
		lastErr error
	)
	for _, scheme := range schemes {
		url = scheme + "://" + host + path
		req, err := http.NewRequestWithContext(s.ctx, method, url, nil)
		if err != nil {
			return nil, url, fmt.Errorf("building request for %s: %w", url, err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := s.r.client.Do(req)
		if err == nil {
			if scheme == "http" {
				s.r.markPlain(host)
			}
			return resp, url, nil
		}
		lastErr = err
		if s.ctx.Err() != nil {
			break
		}
	}
	return nil, url, transportErr(url, lastErr)
}
