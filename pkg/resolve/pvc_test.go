package resolve

// Unit tests of the adoption inputs (pvc.go): which legacy name an
// annotation gives, and the error for several adopted PVCs.

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ogxv1beta1 "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
	"github.com/ogx-k8s/ogx-controller/pkg/render"
)

const (
	sfName          = "demo"
	adoptStorage    = ogxv1beta1.AnnotationAdoptStorage
	adoptNetworking = ogxv1beta1.AnnotationAdoptNetworking
)

// annotated returns a server named sfName with the given annotations.
func annotated(kv ...string) *ogxv1beta1.OGXServer {
	s := &ogxv1beta1.OGXServer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: sfName, Annotations: map[string]string{}}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Annotations[kv[i]] = kv[i+1]
	}
	return s
}

func TestAdoptionSource(t *testing.T) {
	long := strings.Repeat("a", 64)
	cases := []struct {
		name string
		s    *ogxv1beta1.OGXServer
		want string
	}{
		{"absent", annotated(), ""},
		{"empty", annotated(adoptStorage, ""), ""},
		{"valid", annotated(adoptStorage, "legacy"), "legacy"},
		{"the CR's own name", annotated(adoptStorage, sfName), ""},
		{"not a DNS label", annotated(adoptStorage, "Legacy_1"), ""},
		{"longer than 63", annotated(adoptStorage, long), ""},
		{"the other annotation's problem does not disable this one", annotated(adoptStorage, "legacy", adoptNetworking, "BAD"), "legacy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := AdoptionSource(c.s, adoptStorage); got != c.want {
				t.Errorf("AdoptionSource = %q, want %q", got, c.want)
			}
		})
	}
}

func TestMultipleAdopted(t *testing.T) {
	err := MultipleAdopted(annotated(), []string{"a-pvc", "b-pvc"})
	var ue *UserError
	if !errors.As(err, &ue) {
		t.Fatalf("want a user error, got %T", err)
	}
	if ue.Reason != ogxv1beta1.ReasonAdoptionConfigInvalid || ue.EventReason() != ogxv1beta1.EventAdoptionInvalid {
		t.Errorf("reason %q event %q, want %q and %q", ue.Reason, ue.EventReason(), ogxv1beta1.ReasonAdoptionConfigInvalid, ogxv1beta1.EventAdoptionInvalid)
	}
	want := `multiple adopted PVCs found for instance "demo": [a-pvc b-pvc]; remove the ` + render.LabelAdoptedFrom + ` label from all but one`
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
}
