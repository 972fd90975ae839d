package framework

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// serviceClusterIPRange is the range Services get ClusterIPs from. Nothing
// routes it; it only has to be valid and not overlap kwok's pod CIDR
// (10.0.0.0/24 by default).
const serviceClusterIPRange = "10.96.0.0/16"

// serviceAccountIssuer is the issuer of service-account tokens; any URL
// works since nothing outside the control plane verifies them.
const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// probeInterval is how often start-up waits check for readiness.
const probeInterval = 100 * time.Millisecond

// launch starts a component with the framework's args followed by
// Options.ExtraArgs for it, logging to logs/<name>.log, and tracks it.
func (cp *ControlPlane) launch(name, binary string, args []string) (*process, error) {
	args = append(args, cp.opts.ExtraArgs[name]...)
	p, err := startProcess(name, binary, args, filepath.Join(cp.files.logs, name+".log"))
	if err != nil {
		return nil, err
	}
	cp.track(p)
	return p, nil
}

// startEtcd starts a single-member etcd on two free loopback ports and waits
// until it reports healthy. fsync is off: the data dies with the test, and
// fsync dominates etcd latency on CI disks.
func (cp *ControlPlane) startEtcd(ctx context.Context) error {
	return withFreePorts(2, func(ports []int) error {
		clientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
		peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
		p, err := cp.launch(Etcd, cp.assets.etcd, []string{
			"--name=test",
			"--data-dir=" + cp.files.etcdData,
			"--listen-client-urls=" + clientURL,
			"--advertise-client-urls=" + clientURL,
			"--listen-peer-urls=" + peerURL,
			"--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=test=" + peerURL,
			"--unsafe-no-fsync",
			"--log-level=warn",
		})
		if err != nil {
			return err
		}
		httpClient := &http.Client{Timeout: 2 * time.Second}
		err = cp.waitFor(ctx, "etcd to become healthy", []*process{p}, func(ctx context.Context) error {
			return probeEtcd(ctx, httpClient, clientURL+"/health")
		})
		if err != nil {
			return err
		}
		cp.etcdURL = clientURL
		return nil
	})
}

// probeEtcd succeeds when etcd's /health endpoint reports health.
func probeEtcd(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"health":"true"`) {
		return fmt.Errorf("etcd /health: %s %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// startAPIServer starts kube-apiserver on a free loopback port, writes the
// admin kubeconfig and waits for /readyz, which covers etcd connectivity,
// RBAC bootstrap and the other post-start hooks.
func (cp *ControlPlane) startAPIServer(ctx context.Context, sec secrets) error {
	return withFreePorts(1, func(ports []int) error {
		port := strconv.Itoa(ports[0])
		p, err := cp.launch(APIServer, cp.assets.apiServer, append([]string{
			"--etcd-servers=" + cp.etcdURL,
			"--bind-address=127.0.0.1",
			"--secure-port=" + port,
			"--tls-cert-file=" + cp.files.servingCert,
			"--tls-private-key-file=" + cp.files.servingKey,
			"--client-ca-file=" + cp.files.caCert,
			"--token-auth-file=" + cp.files.tokens,
			"--authorization-mode=RBAC",
			"--service-account-issuer=" + serviceAccountIssuer,
			"--service-account-key-file=" + cp.files.saPub,
			"--service-account-signing-key-file=" + cp.files.saKey,
			"--service-cluster-ip-range=" + serviceClusterIPRange,
			// Keeps the apiserver from writing self-signed certificates
			// elsewhere should the serving flags ever be dropped.
			"--cert-dir=" + filepath.Join(cp.dir, "pki"),
			"--allow-privileged=true",
			"--profiling=false",
		}, cp.auditArgs()...))
		if err != nil {
			return err
		}

		host := "https://127.0.0.1:" + port
		cfg := newAdminConfig(host, sec.caPEM, sec.token)
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("creating admin client for %s: %w", host, err)
		}
		err = cp.waitFor(ctx, "kube-apiserver to become ready", []*process{p}, func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			return err
		})
		if err != nil {
			return err
		}
		if err := writeKubeconfig(cp.files.kubeconfig, cfg); err != nil {
			return err
		}
		for user, token := range cp.userTokens {
			userCfg := rest.CopyConfig(cfg)
			userCfg.BearerToken = token
			if err := writeKubeconfig(cp.userKubeconfig(user), userCfg); err != nil {
				return err
			}
		}
		cp.config, cp.client = cfg, client
		return nil
	})
}

// startControllerManager starts kube-controller-manager with every default
// controller except node IPAM (kwok assigns pod IPs itself and Nodes have no
// podCIDR) and attach/detach (no kubelet reports volumes). The node lifecycle
// controller stays on: it removes the not-ready taint from new Nodes.
func (cp *ControlPlane) startControllerManager() error {
	_, err := cp.launch(ControllerManager, cp.assets.controllerManager, []string{
		"--kubeconfig=" + cp.files.kubeconfig,
		"--controllers=*,-nodeipam,-attachdetach",
		"--leader-elect=false",
		"--secure-port=0",
		"--service-account-private-key-file=" + cp.files.saKey,
		"--root-ca-file=" + cp.files.caCert,
	})
	return err
}

// startScheduler starts kube-scheduler; leader election and the serving port
// are off because there is one instance and nothing scrapes it.
func (cp *ControlPlane) startScheduler() error {
	_, err := cp.launch(Scheduler, cp.assets.scheduler, []string{
		"--kubeconfig=" + cp.files.kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
	})
	return err
}

// startKwok starts kwok managing every Node, with the stage definitions that
// make Nodes Ready, keep their heartbeats and leases fresh, and move pods
// through Running and Ready.
func (cp *ControlPlane) startKwok() error {
	_, err := cp.launch(Kwok, cp.assets.kwok, []string{
		"--kubeconfig=" + cp.files.kubeconfig,
		"--manage-all-nodes=true",
		"--config=" + cp.assets.kwokStages,
	})
	return err
}
