package configgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// custom copies a custom provider's settings into its config
// (docs/config-generation.md, Custom providers); the secretRefs keys are
// filled by providerConfig from the entry's Secret fields, so only the overlap
// check is needed here.
func (b *configBuilder) custom(p *v1beta1.CustomProvider) {
	settings, err := decodeSettings(p.Settings)
	if err != nil {
		path := b.entry.Path.Child("settings")
		b.errs = append(b.errs, problem(path, specPath(path)+" must be a JSON object"))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(p.SecretRefs)) {
		if _, dup := settings[k]; dup {
			b.errs = append(b.errs, problem(b.entry.Path.Child("secretRefs").Key(k),
				fmt.Sprintf("custom provider %s: key %q appears in both secretRefs and settings", b.entry.ID, k)))
		}
	}
	for k, v := range settings {
		b.cfg[k] = v
	}
}

var errNotObject = errors.New("not a JSON object")

// decodeSettings decodes settings into fresh generic values. Numbers are
// decoded exactly: integral ones as int64 and the rest as float64, so that
// an integer setting is never written as a float. Absent or null settings
// add nothing.
func decodeSettings(s *apiextensionsv1.JSON) (map[string]any, error) {
	if s == nil {
		return nil, nil
	}
	raw := bytes.TrimSpace(s.Raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotObject
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errNotObject
	}
	return convertNumbers(m).(map[string]any), nil
}

// convertNumbers replaces every json.Number in a decoded JSON tree.
func convertNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = convertNumbers(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = convertNumbers(x)
		}
		return t
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
