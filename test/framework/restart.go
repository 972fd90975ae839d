package framework

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// StopComponent stops one component (for example APIServer or Etcd) the way
// Stop does, SIGTERM then SIGKILL after Options.StopTimeout, and leaves the
// rest running. Fault-injection tests use it to take a dependency away from
// the programs under test; StartComponent brings it back. Stopping a
// component that has already exited is not an error.
func (cp *ControlPlane) StopComponent(name string) error {
	p := cp.proc(name)
	if p == nil {
		return fmt.Errorf("no component %q in this control plane", name)
	}
	return p.stop(cp.opts.StopTimeout)
}

// StartComponent starts a component stopped by StopComponent again with the
// same program and flags, hence on the same ports, with the same data
// directory and the same audit log, and waits until it is ready (etcd
// healthy, or the apiserver's /readyz answering). Clients therefore see an
// outage, not a new cluster: their watches break and must resume. Only
// Etcd and APIServer can be restarted this way; the other components are
// clients of the apiserver and reconnect on their own. The log of the new
// run is appended to the old one.
func (cp *ControlPlane) StartComponent(ctx context.Context, name string) error {
	old := cp.proc(name)
	if old == nil {
		return fmt.Errorf("no component %q in this control plane", name)
	}
	if !old.exited() {
		return fmt.Errorf("%s is still running; stop it with StopComponent first", name)
	}
	var probe func(context.Context) error
	switch name {
	case Etcd:
		httpClient := &http.Client{Timeout: 2 * time.Second}
		probe = func(ctx context.Context) error { return probeEtcd(ctx, httpClient, cp.etcdURL+"/health") }
	case APIServer:
		probe = func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := cp.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			return err
		}
	default:
		return fmt.Errorf("StartComponent supports %s and %s, not %q", Etcd, APIServer, name)
	}
	// cmd.Args holds the program followed by the exact flags of the first
	// run, including Options.ExtraArgs.
	p, err := startProcess(name, old.cmd.Path, old.cmd.Args[1:], old.logPath)
	if err != nil {
		return err
	}
	cp.track(p)
	return cp.waitFor(ctx, name+" to be ready again", []*process{p}, probe)
}
