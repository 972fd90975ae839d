package oci

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// TestMain makes the network unreachable for this package's tests: every
// dial of a client built by NewHTTPClient must go to a loopback address, and
// no proxy may be used.
func TestMain(m *testing.M) {
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		_ = os.Unsetenv(k)
	}
	dialControl = func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("test dial guard: refusing non-loopback dial to %s", address)
		}
		return nil
	}
	os.Exit(m.Run())
}
