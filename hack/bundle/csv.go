package main

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The types below are the part of OLM's ClusterServiceVersion
// (operators.coreos.com/v1alpha1) that this bundle fills in. They are
// declared here, with the field names of OLM's schema, so the product module
// needs no OLM dependency; test/bundle decodes the result strictly into
// OLM's own types, so a misspelt field fails there, and runs OLM's
// validators on it.

type clusterServiceVersion struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       csvSpec           `json:"spec"`
}

type csvSpec struct {
	DisplayName               string              `json:"displayName"`
	Description               string              `json:"description"`
	Version                   string              `json:"version"`
	MinKubeVersion            string              `json:"minKubeVersion"`
	Maturity                  string              `json:"maturity"`
	Provider                  appLink             `json:"provider"`
	Maintainers               []maintainer        `json:"maintainers"`
	Icon                      []icon              `json:"icon"`
	Replaces                  string              `json:"replaces,omitempty"`
	Links                     []appLink           `json:"links"`
	Keywords                  []string            `json:"keywords"`
	InstallModes              []installMode       `json:"installModes"`
	InstallStrategy           installStrategy     `json:"install"`
	CustomResourceDefinitions crdDescriptions     `json:"customresourcedefinitions"`
	WebhookDefinitions        []webhookDefinition `json:"webhookdefinitions"`
	RelatedImages             []relatedImage      `json:"relatedImages"`
}

type appLink struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type icon struct {
	Base64Data string `json:"base64data"`
	MediaType  string `json:"mediatype"`
}

type maintainer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type installMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type installStrategy struct {
	Strategy string       `json:"strategy"`
	Spec     strategySpec `json:"spec"`
}

type strategySpec struct {
	Permissions        []permission     `json:"permissions"`
	ClusterPermissions []permission     `json:"clusterPermissions"`
	Deployments        []deploymentSpec `json:"deployments"`
}

type permission struct {
	ServiceAccountName string              `json:"serviceAccountName"`
	Rules              []rbacv1.PolicyRule `json:"rules"`
}

type deploymentSpec struct {
	Name  string                `json:"name"`
	Label map[string]string     `json:"label,omitempty"`
	Spec  appsv1.DeploymentSpec `json:"spec"`
}

type crdDescriptions struct {
	Owned []crdDescription `json:"owned"`
}

type crdDescription struct {
	Name              string        `json:"name"`
	Version           string        `json:"version"`
	Kind              string        `json:"kind"`
	DisplayName       string        `json:"displayName"`
	Description       string        `json:"description"`
	Resources         []apiResource `json:"resources,omitempty"`
	SpecDescriptors   []descriptor  `json:"specDescriptors,omitempty"`
	StatusDescriptors []descriptor  `json:"statusDescriptors,omitempty"`
}

type apiResource struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

type descriptor struct {
	Path         string   `json:"path"`
	DisplayName  string   `json:"displayName"`
	Description  string   `json:"description,omitempty"`
	XDescriptors []string `json:"x-descriptors,omitempty"`
}

type webhookDefinition struct {
	Type                    string                                       `json:"type"`
	GenerateName            string                                       `json:"generateName"`
	DeploymentName          string                                       `json:"deploymentName"`
	ContainerPort           int32                                        `json:"containerPort"`
	TargetPort              int32                                        `json:"targetPort"`
	WebhookPath             string                                       `json:"webhookPath"`
	AdmissionReviewVersions []string                                     `json:"admissionReviewVersions"`
	SideEffects             *admissionregistrationv1.SideEffectClass     `json:"sideEffects"`
	FailurePolicy           *admissionregistrationv1.FailurePolicyType   `json:"failurePolicy,omitempty"`
	MatchPolicy             *admissionregistrationv1.MatchPolicyType     `json:"matchPolicy,omitempty"`
	TimeoutSeconds          *int32                                       `json:"timeoutSeconds,omitempty"`
	Rules                   []admissionregistrationv1.RuleWithOperations `json:"rules"`
}

type relatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}
