package main

// `kubectl ogx status NAME`: one OGXServer on one screen (docs/cli.md,
// status). Reading and printing are apart: gatherStatus asks the API
// server, printStatus is a pure function of what was read and the time, so
// the output can be compared with golden files.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/generated/clientset/versioned"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// statusClients are the clients status reads with.
type statusClients struct {
	kube kubernetes.Interface
	ogx  versioned.Interface
	// namespace is the kubeconfig context's namespace (or -n).
	namespace string
}

// clusterFlags are the connection flags every kubectl plugin takes.
type clusterFlags struct {
	kubeconfig, context, namespace string
}

// newClientsFunc makes the clients from the connection flags; tests pass
// fake clientsets.
type newClientsFunc func(clusterFlags) (*statusClients, error)

// newClusterClients loads the kubeconfig as kubectl does: --kubeconfig,
// else $KUBECONFIG (a list of files, merged), else ~/.kube/config;
// --context picks a context other than the current one, and the namespace
// is -n, else the context's, else "default".
func newClusterClients(f clusterFlags) (*statusClients, error) {
	cc := clientConfig(f)
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	cfg.UserAgent = "kubectl-ogx/" + version
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ogx, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &statusClients{kube: kube, ogx: ogx, namespace: ns}, nil
}

// clientConfig is the kubeconfig the flags and the environment select.
func clientConfig(f clusterFlags) clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: f.context}
	overrides.Context.Namespace = f.namespace
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// runStatus is `kubectl ogx status NAME`: exit 0 printed, 1 the server or
// the API could not be read, 2 usage.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer, newClients newClientsFunc, now func() time.Time) int {
	const usageLine = "usage: kubectl ogx status NAME [-n NAMESPACE] [--context CONTEXT] [--kubeconfig FILE]"
	var f clusterFlags
	fs := flag.NewFlagSet("kubectl ogx status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.namespace, "n", "", "namespace of the OGXServer (default: the context's namespace)")
	fs.StringVar(&f.namespace, "namespace", "", "same as -n")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context (default: the current context)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), usageLine)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "exit codes: 0 printed, 1 failure (not found, API error), 2 usage")
	}
	names, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(names) != 1 {
		fmt.Fprintf(stderr, "error: want exactly one OGXServer name; %s\n", usageLine)
		return exitUsage
	}
	c, err := newClients(f)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	st, err := gatherStatus(ctx, c, c.namespace, names[0])
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
	_, _ = io.WriteString(stdout, printStatus(st, now()))
	return exitOK
}

// parseInterspersed parses flags before and after the positional
// arguments, as kubectl does (`status NAME -n NS`); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// serverStatus is what status read: the server, its children and Events.
type serverStatus struct {
	server   *ogxv1beta1.OGXServer
	children []child
	events   []corev1.Event
	// eventsErr is why the Events could not be listed, if they could not.
	eventsErr error
}

// child is one object the server's spec asks for.
type child struct {
	kind, name string
	// exists is "yes", "no" or, when the read failed, why it is unknown.
	exists string
	// ready is the Deployment's ready/desired replica count, else "".
	ready string
}

// gatherStatus reads the server, each child its spec asks for, and the
// Events regarding it. Only a failure to read the server is an error: a
// child or the Events that cannot be read are shown as such.
func gatherStatus(ctx context.Context, c *statusClients, ns, name string) (*serverStatus, error) {
	s, err := c.ogx.OgxV1beta1().OGXServers(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("OGXServer %q not found in namespace %q", name, ns)
	}
	if err != nil {
		return nil, fmt.Errorf("reading OGXServer %s/%s: %w", ns, name, err)
	}
	st := &serverStatus{server: s}
	st.children = readChildren(ctx, c.kube, s)
	st.events, st.eventsErr = serverEvents(ctx, c.kube, s)
	return st, nil
}

// readChildren checks, in a fixed order, every child the spec asks for
// (docs/children.md). The ServiceMonitor and PrometheusRule are left out:
// they belong to an optional API (docs/controllers.md, Optional APIs).
func readChildren(ctx context.Context, kube kubernetes.Interface, s *ogxv1beta1.OGXServer) []child {
	ns, n := s.Namespace, s.Name
	deploy := child{kind: "Deployment", name: render.DeploymentName(n)}
	d, err := kube.AppsV1().Deployments(ns).Get(ctx, deploy.name, metav1.GetOptions{})
	deploy.exists = existence(err)
	if err != nil {
		d = nil
	} else {
		desired := int32(1)
		if d.Spec.Replicas != nil {
			desired = *d.Spec.Replicas
		}
		deploy.ready = fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, desired)
	}
	out := []child{deploy}
	for _, c := range otherChildren(kube, s, d) {
		if c.want {
			_, err := c.get(ctx, c.name, metav1.GetOptions{})
			out = append(out, child{kind: c.kind, name: c.name, exists: existence(err)})
		}
	}
	return out
}

// wantedChild is a child other than the Deployment: whether the spec asks
// for it, and how to read it.
type wantedChild struct {
	kind, name string
	want       bool
	get        func(context.Context, string, metav1.GetOptions) (any, error)
}

// otherChildren lists the children after the Deployment d (nil when it
// could not be read), in the order status prints them.
func otherChildren(kube kubernetes.Interface, s *ogxv1beta1.OGXServer, d *appsv1.Deployment) []wantedChild {
	ns, n := s.Namespace, s.Name
	cg := s.Status.ConfigGeneration
	return []wantedChild{
		{"Service", render.ServiceName(n), true, getter(kube.CoreV1().Services(ns).Get)},
		{"ServiceAccount", render.ServiceAccountName(n), true, getter(kube.CoreV1().ServiceAccounts(ns).Get)},
		{"PersistentVolumeClaim", claimName(s, d), s.Spec.StorageSpec() != nil, getter(kube.CoreV1().PersistentVolumeClaims(ns).Get)},
		{"ConfigMap", configMapName(cg), cg != nil && cg.ConfigMapName != "", getter(kube.CoreV1().ConfigMaps(ns).Get)},
		{"NetworkPolicy", render.NetworkPolicyName(n), render.WantNetworkPolicy(s), getter(kube.NetworkingV1().NetworkPolicies(ns).Get)},
		{"HorizontalPodAutoscaler", render.HPAName(n), render.WantHPA(s), getter(kube.AutoscalingV2().HorizontalPodAutoscalers(ns).Get)},
		{"PodDisruptionBudget", render.PDBName(n), render.WantPDB(s), getter(kube.PolicyV1().PodDisruptionBudgets(ns).Get)},
		{"Ingress", render.IngressName(n), render.WantIngress(s), getter(kube.NetworkingV1().Ingresses(ns).Get)},
	}
}

// getter adapts a typed client's Get to wantedChild.get.
func getter[O any](get func(context.Context, string, metav1.GetOptions) (O, error)) func(context.Context, string, metav1.GetOptions) (any, error) {
	return func(ctx context.Context, name string, o metav1.GetOptions) (any, error) { return get(ctx, name, o) }
}

// configMapName is the generated config's ConfigMap, "" without one.
func configMapName(cg *ogxv1beta1.ConfigGenerationStatus) string {
	if cg == nil {
		return ""
	}
	return cg.ConfigMapName
}

// claimName is the PVC the server's pods mount: the Deployment says which
// when it exists (an adopted legacy claim keeps its name, docs/children.md),
// otherwise it is <name>-pvc.
func claimName(s *ogxv1beta1.OGXServer, d *appsv1.Deployment) string {
	if d != nil {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	return render.PVCName(s.Name)
}

// existence words the outcome of a Get.
func existence(err error) string {
	switch {
	case err == nil:
		return "yes"
	case apierrors.IsNotFound(err):
		return "no"
	case apierrors.IsForbidden(err):
		return "unknown (forbidden)"
	}
	return fmt.Sprintf("unknown (%v)", err)
}

// serverEvents lists the Events regarding this incarnation of the server
// (its UID), as kubectl describe selects them.
func serverEvents(ctx context.Context, kube kubernetes.Interface, s *ogxv1beta1.OGXServer) ([]corev1.Event, error) {
	sel := fields.Set{
		"involvedObject.kind": "OGXServer",
		"involvedObject.name": s.Name,
		"involvedObject.uid":  string(s.UID),
	}.AsSelector().String()
	list, err := kube.CoreV1().Events(s.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, e := range list.Items {
		// The selector again: a server without field selection (a fake
		// clientset) returns every Event of the namespace.
		o := e.InvolvedObject
		if o.Kind == "OGXServer" && o.Name == s.Name && o.UID == s.UID {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b corev1.Event) int {
		return cmp.Or(lastSeen(a).Compare(lastSeen(b)), strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

// lastSeen is when an Event last happened: an events.k8s.io Event read
// through core/v1 has its time in eventTime (or series), an older one in
// lastTimestamp.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// firstSeen is when an Event first happened.
func firstSeen(e corev1.Event) time.Time {
	switch {
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}
