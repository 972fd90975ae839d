package render

import ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"

// Label sets of the children (docs/children.md, Labels). Each kind carries an
// exact set, the upstream operator's so that its objects are taken over in
// place; a label added to a set changes what selects on it (the ServiceMonitor
// selects Services by instance), so every set is spelled out here rather than
// assembled by callers. Every function returns a fresh map.

const (
	// ComponentCABundle is the component label value of the CA bundle.
	ComponentCABundle = "ca-bundle"
	trueValue         = "true"
)

// ChildLabels is the upstream three-label set: managed-by, part-of and watch.
func ChildLabels() map[string]string {
	return map[string]string{
		LabelManagedBy:        ManagedByValue,
		LabelPartOf:           PartOfValue,
		ogxv1beta1.WatchLabel: trueValue,
	}
}

// InstanceChildLabels is ChildLabels plus the instance label. On the Service
// the instance label is what lets the ServiceMonitor select only this
// instance's Service.
func InstanceChildLabels(name string) map[string]string {
	l := ChildLabels()
	l[LabelInstance] = name
	return l
}

// ScalingLabels is the set of the HPA and the PDB: InstanceChildLabels plus
// app: ogx.
func ScalingLabels(name string) map[string]string {
	l := InstanceChildLabels(name)
	l[LabelApp] = AppValue
	return l
}

// ServiceMonitorLabels adds the OpenDataHub scrape label to
// InstanceChildLabels.
func ServiceMonitorLabels(name string) map[string]string {
	l := InstanceChildLabels(name)
	l[LabelScrape] = trueValue
	return l
}

// IngressLabels is the upstream Ingress set: managed-by and instance only.
func IngressLabels(name string) map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedByValue,
		LabelInstance:  name,
	}
}

// CABundleLabels labels the N-ca-bundle ConfigMap. The watch label puts it in
// the controller's ConfigMap cache, which the deployment controller consults
// before mounting it.
func CABundleLabels(name string) map[string]string {
	return map[string]string{
		LabelManagedBy:        ManagedByValue,
		LabelInstance:         name,
		LabelComponent:        ComponentCABundle,
		ogxv1beta1.WatchLabel: trueValue,
	}
}

// GeneratedConfigLabels labels the N-config-<h16> ConfigMaps; retention lists
// them by the generated-config and instance labels.
func GeneratedConfigLabels(name string) map[string]string {
	return map[string]string{
		LabelManagedBy:        ManagedByValue,
		LabelInstance:         name,
		LabelGeneratedConfig:  trueValue,
		ogxv1beta1.WatchLabel: trueValue,
	}
}

// SelectorLabels are the pod labels every selector of an instance matches.
// They never change: a Deployment selector is immutable.
func SelectorLabels(name string) map[string]string {
	return map[string]string{
		LabelApp:      AppValue,
		LabelInstance: name,
	}
}

// instanceOnly is the selector of the spread constraints and the
// anti-affinity: pods of this instance, whatever their other labels.
func instanceOnly(name string) map[string]string {
	return map[string]string{LabelInstance: name}
}
