package configgen

// yaml.v3 decodes a mapping whose keys are all strings into map[string]any
// and any other mapping into map[any]any. Base configs may contain either
// below the top level, so the few places that edit a base mapping go through
// these helpers instead of assuming one type.

// isMapping reports whether v is a decoded YAML mapping.
func isMapping(v any) bool {
	switch v.(type) {
	case map[string]any, map[any]any:
		return true
	}
	return false
}

// mapGet returns m[k] for either mapping type.
func mapGet(m any, k string) (any, bool) {
	switch t := m.(type) {
	case map[string]any:
		v, ok := t[k]
		return v, ok
	case map[any]any:
		v, ok := t[k]
		return v, ok
	}
	return nil, false
}

// mapCopy returns a shallow copy of a mapping, keeping its type.
func mapCopy(m any) any {
	switch t := m.(type) {
	case map[string]any:
		c := make(map[string]any, len(t)+2)
		for k, v := range t {
			c[k] = v
		}
		return c
	case map[any]any:
		c := make(map[any]any, len(t)+2)
		for k, v := range t {
			c[k] = v
		}
		return c
	}
	return map[string]any{}
}

// mapSet sets m[k] = v on a mapping made by mapCopy.
func mapSet(m any, k string, v any) {
	switch t := m.(type) {
	case map[string]any:
		t[k] = v
	case map[any]any:
		t[k] = v
	}
}

// mapDelete removes k from a mapping made by mapCopy.
func mapDelete(m any, k string) {
	switch t := m.(type) {
	case map[string]any:
		delete(t, k)
	case map[any]any:
		delete(t, k)
	}
}
