package configgen

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// base is a parsed and validated base config (docs/config-generation.md, Base
// parsing).
type base struct {
	// doc is the whole top-level mapping, decoded by yaml.v3 into generic
	// values; nothing is post-processed.
	doc map[string]any
	// version is the literal text of the version scalar.
	version string
}

// yamlErr flattens a yaml.v3 error, which may list several problems on
// indented lines, into one line fit for a condition message.
func yamlErr(err error) error {
	return parseErr("%s", strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " "))
}

func parseErr(format string, args ...any) error {
	return fmt.Errorf("failed to parse base config: "+format, args...)
}

// errMissingVersion is E3.
var errMissingVersion = errors.New("failed to validate base config: missing required 'version' field")

// parseBase decodes and validates the base config bytes. The document is
// decoded twice, once as a node tree to read version's literal text (so
// `2.0` stays "2.0" rather than becoming the float 2) and once into generic
// values for the merge.
func parseBase(data []byte) (*base, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlErr(err)
	}
	root := resolveAlias(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = resolveAlias(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		return nil, parseErr("document is not a mapping")
	}
	var generic any
	if err := root.Decode(&generic); err != nil {
		return nil, yamlErr(err)
	}
	top, ok := generic.(map[string]any)
	if !ok {
		return nil, parseErr("document is not a mapping with string keys")
	}
	if len(top) == 0 {
		return nil, parseErr("document is an empty mapping")
	}
	version, err := versionText(root, top)
	if err != nil {
		return nil, err
	}
	if err := checkSections(top); err != nil {
		return nil, err
	}
	return &base{doc: top, version: version}, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// versionText returns the literal text of the top-level version scalar.
func versionText(root *yaml.Node, top map[string]any) (string, error) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := resolveAlias(root.Content[i])
		if k.Kind != yaml.ScalarNode || k.Value != "version" {
			continue
		}
		v := resolveAlias(root.Content[i+1])
		if v.Kind != yaml.ScalarNode || v.Value == "" || v.ShortTag() == "!!null" {
			return "", errMissingVersion
		}
		return v.Value, nil
	}
	// Only a merge key (<<) can bring a version that is not a direct key;
	// its node is not at hand, so the decoded scalar is formatted instead.
	switch v := top["version"].(type) {
	case string:
		if v != "" {
			return v, nil
		}
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), nil
	}
	return "", errMissingVersion
}

// configVersion is Atoi(version), else 2. The warning (W2) is given only
// when the text is not a number at all, as "2.0" is a valid if unusual
// spelling of a numeric version.
func configVersion(v string) (int, string) {
	if n, err := strconv.Atoi(v); err == nil {
		return n, ""
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return 2, ""
	}
	return 2, fmt.Sprintf("base config version %q is not numeric; assuming 2", v)
}

// checkSections enforces the types of the known top-level sections (E5).
func checkSections(top map[string]any) error {
	if v := top["apis"]; v != nil {
		list, ok := v.([]any)
		if !ok {
			return parseErr("apis must be a list of strings")
		}
		for _, a := range list {
			if _, ok := a.(string); !ok {
				return parseErr("apis must be a list of strings")
			}
		}
	}
	if err := checkProviders(top["providers"]); err != nil {
		return err
	}
	for _, k := range []string{"server", "storage", "vector_stores"} {
		if v := top[k]; v != nil && !isMapping(v) {
			return parseErr("%s must be a mapping", k)
		}
	}
	if v := top["registered_resources"]; v != nil {
		if !isMapping(v) {
			return parseErr("registered_resources must be a mapping")
		}
		for _, k := range []string{"models", "vector_stores"} {
			if x, _ := mapGet(v, k); x != nil {
				if _, ok := x.([]any); !ok {
					return parseErr("registered_resources.%s must be a list", k)
				}
			}
		}
	}
	return nil
}

func checkProviders(v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return parseErr("providers must be a mapping from API names to provider lists")
	}
	for _, api := range slices.Sorted(maps.Keys(m)) {
		lv := m[api]
		if lv == nil {
			continue
		}
		list, ok := lv.([]any)
		if !ok {
			return parseErr("providers.%s must be a list of provider mappings", api)
		}
		for i, e := range list {
			if !isMapping(e) {
				return parseErr("providers.%s must be a list of provider mappings", api)
			}
			if c, _ := mapGet(e, "config"); c != nil && !isMapping(c) {
				return parseErr("providers.%s[%d].config must be a mapping", api, i)
			}
		}
	}
	return nil
}
