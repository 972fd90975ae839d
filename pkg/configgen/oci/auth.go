package oci

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/publicsuffix"
)

const (
	maxTokenBody     = 64 << 10
	defaultTokenLife = 60 * time.Second
	tokenMargin      = 10 * time.Second
)

// challenge is one WWW-Authenticate challenge.
type challenge struct {
	scheme string
	params map[string]string
}

// parseChallenges parses WWW-Authenticate values of the form
// `Scheme k="v",k2=v2`; quoted values may hold commas and escaped quotes.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		v = strings.TrimSpace(v)
		scheme, rest, _ := strings.Cut(v, " ")
		if scheme == "" {
			continue
		}
		out = append(out, challenge{scheme: strings.ToLower(scheme), params: parseParams(rest)})
	}
	return out
}

func parseParams(s string) map[string]string {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " ,\t")
		if s == "" {
			return params
		}
		key, rest, ok := strings.Cut(s, "=")
		if !ok {
			return params
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var val string
		if strings.HasPrefix(rest, `"`) {
			val, s = readQuoted(rest[1:])
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			val, s = strings.TrimSpace(rest[:end]), rest[end:]
		}
		params[key] = val
	}
}

// readQuoted reads a quoted string whose opening quote is already consumed
// and returns its value and the text after the closing quote.
func readQuoted(s string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// bearer returns the first Bearer challenge that names a realm.
func bearer(chs []challenge) (challenge, bool) {
	for _, c := range chs {
		if c.scheme == "bearer" && c.params["realm"] != "" {
			return c, true
		}
	}
	return challenge{}, false
}

// tokenKey identifies a cached token: realm, service and scope of the
// challenge.
type tokenKey struct{ realm, service, scope string }

type cachedToken struct {
	token string
	until time.Time
}

// token returns a bearer token for the challenge, from the cache unless
// fresh is set (the cached one was just refused). The request carries no
// credentials at all.
func (s *session) token(ch challenge, fresh bool) (string, error) {
	key := tokenKey{realm: ch.params["realm"], service: ch.params["service"], scope: ch.params["scope"]}
	if key.scope == "" {
		key.scope = "repository:" + s.ref.repo + ":pull"
	}
	s.r.rememberChallenge(s.ref, key)
	if !fresh {
		if tok, ok := s.r.lookupToken(key); ok {
			return tok, nil
		}
	}
	u, err := url.Parse(key.realm)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("registry %s sent an invalid token realm %q", s.ref.registry, key.realm)
	}
	if u.Scheme == "http" && !s.r.plainAllowed(u.Host) {
		return "", fmt.Errorf("token realm %s is not HTTPS", key.realm)
	}
	if !s.r.realmAllowed(s.ref.host, u.Hostname()) {
		return "", fmt.Errorf("registry %s sent a token realm on another host (%s): add it with --registry-token-host if it is the registry's token service",
			s.ref.registry, u.Hostname())
	}
	q := u.Query()
	if key.service != "" {
		q.Set("service", key.service)
	}
	q.Set("scope", key.scope)
	u.RawQuery = q.Encode()
	tok, life, err := s.fetchToken(u.String())
	if err != nil {
		return "", err
	}
	s.r.storeToken(key, tok, life)
	return tok, nil
}

// fetchToken GETs a token URL and reads token (or access_token) and
// expires_in from the JSON answer.
func (s *session) fetchToken(tokenURL string) (string, time.Duration, error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, tokenURL, nil)
	if err != nil {
		return "", 0, fmt.Errorf("building token request: %w", err)
	}
	// A redirect of the token request must stay where the realm may be.
	c := *s.r.client
	c.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if !s.r.realmAllowed(s.ref.host, next.URL.Hostname()) {
			return refuse("refusing token redirect to another host (%s)", next.URL.Hostname())
		}
		return s.r.checkRedirect(next, via)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", 0, transportErr(tokenURL, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", 0, errAnonymous(s.ref.registry, s.ref.repo)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return "", 0, fmt.Errorf("unexpected HTTP %d from %s", resp.StatusCode, tokenURL)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenBody+1))
	if err != nil {
		return "", 0, transportErr(tokenURL, err)
	}
	if len(body) > maxTokenBody {
		return "", 0, errors.New("token response exceeds 64 KiB")
	}
	var t struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return "", 0, fmt.Errorf("decoding token response from %s: %w", tokenURL, err)
	}
	tok := t.Token
	if tok == "" {
		tok = t.AccessToken
	}
	if tok == "" {
		return "", 0, errAnonymous(s.ref.registry, s.ref.repo)
	}
	life := defaultTokenLife
	if t.ExpiresIn > 0 {
		life = time.Duration(t.ExpiresIn) * time.Second
	}
	return tok, life, nil
}

// realmAllowed reports whether a registry contacted at registryHost may send
// the operator to realmHost for a token. The realm is chosen by the
// registry, so without this rule any registry an OGXServer names could point
// the operator at any address, internal ones included. Allowed: the
// registry's own host name, a host of the same registrable domain
// (registry-1.docker.io and auth.docker.io share docker.io), or a host of
// TokenHosts. IP addresses and names outside the ICANN public suffixes
// (cluster-internal ones) match only themselves.
func (r *Resolver) realmAllowed(registryHost, realmHost string) bool {
	reg, realm := hostName(registryHost), hostName(realmHost)
	if realm == reg || r.tokenHosts[realm] {
		return true
	}
	return icannDomain(reg) != "" && icannDomain(reg) == icannDomain(realm)
}

// hostName is host without port or IPv6 brackets, lower-cased.
func hostName(host string) string {
	h := strings.ToLower(host)
	if hn, _, err := net.SplitHostPort(h); err == nil {
		h = hn
	}
	return strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
}

// icannDomain is host's registrable domain under a public suffix of the
// ICANN section of the list, or "" for an IP address or any other name:
// names inside a cluster (svc.cluster.local) or of a private suffix share no
// domain that vouches for them.
func icannDomain(host string) string {
	if net.ParseIP(host) != nil {
		return ""
	}
	if _, icann := publicsuffix.PublicSuffix(host); !icann {
		return ""
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return ""
	}
	return d
}
