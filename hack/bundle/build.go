package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// options are the generator's inputs.
type options struct {
	release, crds, samples, changelog string
	version, channel                  string
}

const (
	packageName = "ogx-controller"
	// The names of the install's objects that the bundle is made from
	// (config/manager, config/webhook, config/rbac).
	deploymentName    = "ogx-k8s-operator-controller-manager"
	metricsService    = "ogx-k8s-operator-controller-manager-metrics-service"
	webhookService    = "ogx-k8s-operator-webhook-service"
	webhookConfigName = "ogx-controller-validating-webhook-configuration"
	metricsReader     = "ogx-controller-metrics-reader"
	anyUIDRole        = "ogx-controller-any-uid"
	hashKeyRole       = "ogx-controller-hash-key"
	storageAdoption   = "ogx-controller-storage-adoption"
	viewRole          = "ogx-controller-view"
	editRole          = "ogx-controller-edit"
	ogxCRD            = "ogxservers.ogx.io"
	legacyCRD         = "llamastackdistributions.llamastack.io"
	legacyCRDFile     = "llamastack.io_llamastackdistributions.yaml"
	// minKubeVersion: the CRD's validation rules (x-kubernetes-validations)
	// are enforced by default from Kubernetes 1.25 and GA in 1.29; the
	// operator is tested on 1.37 (Makefile, K8S_VERSION).
	minKubeVersion = "1.29.0"
	repository     = "https://github.com/ogx-k8s/ogx-controller"
)

// build returns the bundle's files by path relative to the bundle directory.
func build(o options) (map[string][]byte, error) {
	rel, err := readManifests(o.release)
	if err != nil {
		return nil, err
	}
	var ogx, legacy apiextensionsv1.CustomResourceDefinition
	if err := rel.get("CustomResourceDefinition", ogxCRD, &ogx); err != nil {
		return nil, err
	}
	legacyFile, err := readManifests(filepath.Join(o.crds, legacyCRDFile))
	if err != nil {
		return nil, err
	}
	if err := legacyFile.get("CustomResourceDefinition", legacyCRD, &legacy); err != nil {
		return nil, err
	}
	csv, err := buildCSV(o, rel, &ogx, &legacy)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	add := func(name string, obj any) error {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files[name] = b
		return nil
	}
	if err := add("manifests/"+packageName+".clusterserviceversion.yaml", csv); err != nil {
		return nil, err
	}
	// The CRDs are copied as they are in their files (the typed objects
	// would add an empty status).
	for _, x := range []struct {
		m          *manifests
		name, file string
	}{{rel, ogxCRD, "ogx.io_ogxservers.yaml"}, {legacyFile, legacyCRD, legacyCRDFile}} {
		obj, err := x.m.object("CustomResourceDefinition", x.name)
		if err != nil {
			return nil, err
		}
		if err := add("manifests/"+x.file, obj.Object); err != nil {
			return nil, err
		}
	}
	// Objects OLM creates in the operator's namespace next to the CSV: the
	// metrics Service, the operator's PDB, the ClusterRole a scraper is
	// bound to, the opt-in ClusterRoles an administrator binds to the
	// operator (config/rbac: any UID, storage adoption), the ClusterRoles
	// aggregated into the built-in view, edit and admin roles (config/rbac:
	// aggregate_roles.yaml; their labels do the granting), and the hash-key
	// Role and its binding: OLM would grant a Role folded into the CSV's
	// permissions in every target namespace (cluster-wide for
	// AllNamespaces), and "create Secrets" there would let the operator
	// mint ServiceAccount tokens anywhere; as a bundle object it exists
	// only in the operator namespace, where its ServiceAccount subject
	// without a namespace means that namespace's account. Their namespace is the OperatorGroup's, so it is dropped.
	// The release's NetworkPolicy is left out: OLM v1 refuses a bundle that
	// carries one, and only recent OLM v0 releases accept it (docs/security.md).
	for _, x := range []struct{ kind, name, file string }{
		{"Service", metricsService, metricsService + "_v1_service.yaml"},
		{"PodDisruptionBudget", deploymentName, deploymentName + "_policy_v1_poddisruptionbudget.yaml"},
		{"ClusterRole", metricsReader, metricsReader + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"},
		{"ClusterRole", anyUIDRole, anyUIDRole + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"},
		{"ClusterRole", storageAdoption, storageAdoption + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"},
		{"ClusterRole", viewRole, viewRole + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"},
		{"ClusterRole", editRole, editRole + "_rbac.authorization.k8s.io_v1_clusterrole.yaml"},
		{"Role", hashKeyRole, hashKeyRole + "_rbac.authorization.k8s.io_v1_role.yaml"},
		{"RoleBinding", hashKeyRole, hashKeyRole + "_rbac.authorization.k8s.io_v1_rolebinding.yaml"},
	} {
		obj, err := rel.object(x.kind, x.name)
		if err != nil {
			return nil, err
		}
		obj.SetNamespace("")
		if x.kind == "RoleBinding" {
			if err := dropSubjectNamespaces(obj); err != nil {
				return nil, err
			}
		}
		if err := add("manifests/"+x.file, obj.Object); err != nil {
			return nil, err
		}
	}
	if err := add("metadata/annotations.yaml", map[string]any{"annotations": bundleAnnotations(o.channel)}); err != nil {
		return nil, err
	}
	return files, nil
}

// bundleAnnotations are the bundle image's metadata; bundle.Dockerfile
// repeats them as labels (test/bundle checks that they agree).
func bundleAnnotations(channel string) map[string]string {
	return map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         packageName,
		"operators.operatorframework.io.bundle.channels.v1":        channel,
		"operators.operatorframework.io.bundle.channel.default.v1": channel,
	}
}

// buildCSV assembles the ClusterServiceVersion from the release's install
// objects, the samples and the two CRDs.
func buildCSV(o options, rel *manifests, ogx, legacy *apiextensionsv1.CustomResourceDefinition) (*clusterServiceVersion, error) {
	inst, err := readInstall(rel)
	if err != nil {
		return nil, err
	}
	examples, err := almExamples(o.samples)
	if err != nil {
		return nil, err
	}
	owned, err := ownedCRDs(ogx, legacy)
	if err != nil {
		return nil, err
	}
	d := &inst.deployment
	image := d.Spec.Template.Spec.Containers[0].Image
	internal, err := json.Marshal([]string{legacyCRD})
	if err != nil {
		return nil, err
	}
	releases, err := readReleases(o.changelog)
	if err != nil {
		return nil, err
	}
	replaces, date, err := upgradeGraph(releases, o.version)
	if err != nil {
		return nil, err
	}
	csv := &clusterServiceVersion{
		APIVersion: "operators.coreos.com/v1alpha1",
		Kind:       "ClusterServiceVersion",
		Metadata: metav1.ObjectMeta{
			Name: packageName + ".v" + o.version,
			Annotations: map[string]string{
				"alm-examples":   examples,
				"capabilities":   "Basic Install",
				"categories":     "AI/Machine Learning",
				"containerImage": image,
				"description":    "Runs OGX servers described by OGXServer objects.",
				"repository":     repository,
				"operators.operatorframework.io/internal-objects": string(internal),
				"operatorframework.io/suggested-namespace":        d.Namespace,
				// Any earlier release upgrades to this one in one step,
				// not only the one it replaces.
				"olm.skipRange": "<" + o.version,
			},
		},
		Spec: newCSVSpec(o, inst, owned, image),
	}
	if replaces != "" {
		csv.Spec.Replaces = packageName + ".v" + replaces
	}
	if date != "" {
		csv.Metadata.Annotations["createdAt"] = date
	}
	return csv, nil
}

// installParts are the parts of the release's install that the CSV's
// install strategy and webhook definitions are made of.
type installParts struct {
	deployment          appsv1.Deployment
	namespaced, cluster []rbacv1.PolicyRule
	webhooks            []webhookDefinition
}

// readInstall reads the operator's Deployment (adapted for OLM), its RBAC
// rules split by scope, and the webhook definitions.
func readInstall(rel *manifests) (*installParts, error) {
	inst := &installParts{}
	d := &inst.deployment
	if err := rel.get("Deployment", deploymentName, d); err != nil {
		return nil, err
	}
	if err := forOLM(d); err != nil {
		return nil, err
	}
	var err error
	if inst.namespaced, inst.cluster, err = splitRules(rel, d.Spec.Template.Spec.ServiceAccountName); err != nil {
		return nil, err
	}
	var whc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := rel.get("ValidatingWebhookConfiguration", webhookConfigName, &whc); err != nil {
		return nil, err
	}
	var svc corev1.Service
	if err := rel.get("Service", webhookService, &svc); err != nil {
		return nil, err
	}
	if inst.webhooks, err = webhooks(&whc, &svc, deploymentName); err != nil {
		return nil, err
	}
	return inst, nil
}

// ownedCRDs describes the OGXServer CRD and the legacy one.
func ownedCRDs(ogx, legacy *apiextensionsv1.CustomResourceDefinition) ([]crdDescription, error) {
	ogxDesc, err := ownedCRD(ogx, "OGX Server", ogxResources)
	if err != nil {
		return nil, err
	}
	legacyDesc, err := ownedCRD(legacy, "LlamaStackDistribution (legacy)", nil)
	if err != nil {
		return nil, err
	}
	legacyDesc.Description = "The llama-stack operator's API, kept for migration: ogx-controller does not reconcile it; `kubectl ogx migrate` converts one into an OGXServer, which then adopts its storage and networking."
	return []crdDescription{*ogxDesc, *legacyDesc}, nil
}

// newCSVSpec is the CSV's spec: the fixed description and the install.
func newCSVSpec(o options, inst *installParts, owned []crdDescription, image string) csvSpec {
	d := &inst.deployment
	sa := d.Spec.Template.Spec.ServiceAccountName
	return csvSpec{
		DisplayName:    "OGX Controller",
		Description:    csvDescription,
		Version:        o.version,
		MinKubeVersion: minKubeVersion,
		Maturity:       o.channel,
		Provider:       appLink{Name: "ogx-k8s", URL: repository},
		Maintainers:    csvMaintainers,
		Icon:           csvIcon(),
		Links:          []appLink{{Name: "Source and documentation", URL: repository}},
		Keywords:       []string{"ogx", "llama-stack", "llm", "inference", "ai"},
		// --watch-namespaces takes any set of namespaces, or none for
		// all (forOLM passes OLM's choice in).
		InstallModes: []installMode{
			{Type: "OwnNamespace", Supported: true},
			{Type: "SingleNamespace", Supported: true},
			{Type: "MultiNamespace", Supported: true},
			{Type: "AllNamespaces", Supported: true},
		},
		InstallStrategy: installStrategy{Strategy: "deployment", Spec: strategySpec{
			Permissions:        []permission{{ServiceAccountName: sa, Rules: inst.namespaced}},
			ClusterPermissions: []permission{{ServiceAccountName: sa, Rules: inst.cluster}},
			Deployments:        []deploymentSpec{{Name: d.Name, Label: d.Labels, Spec: d.Spec}},
		}},
		CustomResourceDefinitions: crdDescriptions{Owned: owned},
		WebhookDefinitions:        inst.webhooks,
		RelatedImages:             []relatedImage{{Name: "ogx-controller", Image: image}},
	}
}

// ogxResources are the kinds of an OGXServer's children
// (docs/children.md), which consoles list as the object's resources. OLM's
// schema has a name for each; it stays empty because the names depend on
// the OGXServer's.
var ogxResources = []apiResource{
	{Kind: "Deployment", Version: "v1"},
	{Kind: "Service", Version: "v1"},
	{Kind: "ServiceAccount", Version: "v1"},
	{Kind: "PersistentVolumeClaim", Version: "v1"},
	{Kind: "ConfigMap", Version: "v1"},
	{Kind: "NetworkPolicy", Version: "v1"},
	{Kind: "HorizontalPodAutoscaler", Version: "v2"},
	{Kind: "PodDisruptionBudget", Version: "v1"},
	{Kind: "Ingress", Version: "v1"},
	{Kind: "RoleBinding", Version: "v1"},
	{Kind: "ServiceMonitor", Version: "v1"},
	{Kind: "PrometheusRule", Version: "v1"},
}

const csvDescription = `ogx-controller runs OGX servers. You describe a server with an OGXServer
object (ogx.io/v1beta1): the distribution to run, its providers and storage,
how it is exposed and scaled. The controller creates and keeps the
Deployment, Service, ServiceAccount, PersistentVolumeClaim and, when asked
for, NetworkPolicy, HorizontalPodAutoscaler, PodDisruptionBudget, Ingress and
CA-bundle ConfigMap, and reports Ready, Reconciling and Stalled conditions.

A validating admission webhook rejects invalid OGXServers with messages that
name the field and the fix. Legacy LlamaStackDistribution installs are taken
over in place: see the migration guide (docs/migration.md).

Every Secret and ConfigMap an OGXServer references must carry the label
ogx.io/watch: "true".`

// ownedCRD describes the CRD's served storage version for the CSV.
func ownedCRD(crd *apiextensionsv1.CustomResourceDefinition, display string, resources []apiResource) (*crdDescription, error) {
	for _, v := range crd.Spec.Versions {
		if !v.Storage {
			continue
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("CRD %s version %s has no schema", crd.Name, v.Name)
		}
		spec, status := descriptors(v.Schema.OpenAPIV3Schema)
		return &crdDescription{
			Name:              crd.Name,
			Version:           v.Name,
			Kind:              crd.Spec.Names.Kind,
			DisplayName:       display,
			Description:       firstSentence(v.Schema.OpenAPIV3Schema.Description),
			Resources:         resources,
			SpecDescriptors:   spec,
			StatusDescriptors: status,
		}, nil
	}
	return nil, fmt.Errorf("CRD %s has no storage version", crd.Name)
}

// almExamples is every sample in dir as the JSON list OLM shows as the
// starting point of a new object.
func almExamples(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var objs []map[string]any
	for _, f := range files {
		m, err := readManifests(f)
		if err != nil {
			return "", err
		}
		for _, d := range m.docs {
			objs = append(objs, d.Object)
		}
	}
	if len(objs) == 0 {
		return "", fmt.Errorf("no samples in %s", dir)
	}
	b, err := json.MarshalIndent(objs, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b), nil
}
