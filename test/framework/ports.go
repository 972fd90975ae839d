package framework

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// errPortInUse marks a component that exited because another process took
// one of its ports between freePorts releasing it and the component binding
// it. Start retries such components with fresh ports.
var errPortInUse = errors.New("port already in use")

// portAttempts is how many times a component is started with fresh ports
// before a port conflict is reported.
const portAttempts = 3

// freePorts returns n distinct unused loopback TCP ports. The kernel picks
// them; all listeners stay open until every port is chosen so the same port
// is not handed out twice, then they are closed so the components can bind.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free loopback port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// withFreePorts runs start with n fresh ports, again with new ones when it
// fails with errPortInUse, up to portAttempts times.
func withFreePorts(n int, start func(ports []int) error) error {
	var err error
	for range portAttempts {
		var ports []int
		if ports, err = freePorts(n); err != nil {
			return err
		}
		if err = start(ports); !errors.Is(err, errPortInUse) {
			return err
		}
	}
	return fmt.Errorf("giving up after %d attempts: %w", portAttempts, err)
}

// mentionsPortInUse reports whether a component's log lines show a failed
// bind, which is the only start failure worth retrying.
func mentionsPortInUse(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "address already in use") {
			return true
		}
	}
	return false
}
