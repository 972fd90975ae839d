package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// connectProxy is the kube-apiserver's egress proxy for cluster traffic
// (--egress-selector-config-file, HTTP CONNECT). The apiserver calls a
// webhook by its Service's DNS name, which nothing resolves on a loopback
// control plane; through this proxy each CONNECT to a registered
// Service address (ClusterIP:port) reaches an ogx-controller process on
// loopback instead, while the apiserver still does everything else as in a
// cluster: it picks the Service from the webhook configuration, verifies the
// serving certificate against the caBundle for the Service's DNS name, and
// sends the AdmissionReview to the configured path. Other targets are
// refused and recorded.
type connectProxy struct {
	l net.Listener

	mu      sync.Mutex
	routes  map[string][]string // target host:port -> backends, round-robin
	next    map[string]int
	refused []string
}

// newConnectProxy listens on the unix socket path: the apiserver's TCP
// transport to a proxy insists on TLS, a socket needs none.
func newConnectProxy(path string) (*connectProxy, error) {
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening for the egress proxy: %w", err)
	}
	p := &connectProxy{l: l, routes: map[string][]string{}, next: map[string]int{}}
	go p.serve()
	return p, nil
}

func (p *connectProxy) close() error { return p.l.Close() }

// route sends CONNECTs to target (host:port) to the backends in turn.
func (p *connectProxy) route(target string, backends ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.routes[target] = backends
}

// refusedTargets lists the CONNECT targets that had no route.
func (p *connectProxy) refusedTargets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

func (p *connectProxy) pick(target string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bs := p.routes[target]
	if len(bs) == 0 {
		p.refused = append(p.refused, target)
		return "", false
	}
	b := bs[p.next[target]%len(bs)]
	p.next[target]++
	return b, true
}

func (p *connectProxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *connectProxy) handle(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	if req.Method != http.MethodConnect {
		fmt.Fprint(c, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		return
	}
	backend, ok := p.pick(req.Host)
	if !ok {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	b, err := net.Dial("tcp", backend)
	if err != nil {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer b.Close()
	if _, err := fmt.Fprint(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(b, br)
		if tc, ok := b.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(c, b)
	_ = c.Close()
	<-done
}
