package apply

import "encoding/json"

// AsObject converts an apply configuration to the typed object of the same
// kind: for a write that is a create or an update rather than an apply
// (the PVC's create, the status write's typed copy).
func AsObject[T any](ac any) (*T, error) {
	b, err := json.Marshal(ac)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		return nil, err
	}
	return out, nil
}
