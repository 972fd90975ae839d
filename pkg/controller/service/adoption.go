package service

import (
	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

// serviceSelectorPatch is the selector of an adopted Service: exactly our
// pod labels, every other key removed.
func serviceSelectorPatch(s *ogxv1beta1.OGXServer, current map[string]string) map[string]any {
	want := render.SelectorLabels(s.Name)
	out := map[string]any{}
	same := len(current) == len(want)
	for k, v := range want {
		out[k] = v
		same = same && current[k] == v
	}
	for k := range current {
		if _, ok := want[k]; !ok {
			out[k] = nil
		}
	}
	if same {
		return nil
	}
	return out
}
