package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // kind/name of each object
		wantErr  string
	}{
		{name: "documents in order, empty and comment-only ones left out",
			in:   "---\n# a comment\n---\nkind: A\nmetadata: {name: a}\n---\n\n---\nkind: B\nmetadata: {name: b}\n",
			want: []string{"A/a", "B/b"}},
		{name: "JSON", in: `{"kind": "A", "metadata": {"name": "a"}}`, want: []string{"A/a"}},
		{name: "nothing", in: ""},
		{name: "a list is not an object", in: "- a\n- b\n", wantErr: "in.yaml: "},
		{name: "bad YAML", in: "kind: [\n", wantErr: "in.yaml: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Read(strings.NewReader(tc.in), "in.yaml")
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}
