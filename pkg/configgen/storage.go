package configgen

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"
)

// The sqlite paths are byte-identical to upstream; the Deployment points
// SQLITE_STORE_DIR at the storage mount so they follow the volume.
const (
	sqliteKVPath  = "${env.SQLITE_STORE_DIR:=/.ogx}/kvstore.db"
	sqliteSQLPath = "${env.SQLITE_STORE_DIR:=/.ogx}/sqlstore.db"
)

// storageBlock is the storage section written when spec.storage is set
// (docs/config-generation.md, Storage): both backends and exactly the four
// stores. Everything in the base storage is discarded.
func storageBlock(st *v1beta1.StateStorageSpec) (map[string]any, field.ErrorList) {
	var errs field.ErrorList
	kv := map[string]any{"type": "kv_sqlite", "db_path": sqliteKVPath}
	if st.KV != nil {
		switch st.KV.Type {
		case "", "sqlite":
		case "redis":
			kv = map[string]any{"type": "kv_redis", "host": st.KV.Endpoint}
			if st.KV.Password != nil {
				kv["password"] = "${env." + v1beta1.EnvStorageKVPassword + "}"
			}
		default:
			p := field.NewPath("spec", "storage", "kv", "type")
			errs = append(errs, problem(p, fmt.Sprintf("%s %q is not supported (sqlite or redis)", specPath(p), st.KV.Type)))
		}
	}
	sql := map[string]any{"type": "sql_sqlite", "db_path": sqliteSQLPath}
	if st.SQL != nil {
		switch st.SQL.Type {
		case "", "sqlite":
		case "postgres":
			sql = map[string]any{"type": "sql_postgres",
				"connection_string": "${env." + v1beta1.EnvStorageSQLConnectionString + "}"}
		default:
			p := field.NewPath("spec", "storage", "sql", "type")
			errs = append(errs, problem(p, fmt.Sprintf("%s %q is not supported (sqlite or postgres)", specPath(p), st.SQL.Type)))
		}
	}
	return map[string]any{
		"backends": map[string]any{"kv_default": kv, "sql_default": sql},
		"stores": map[string]any{
			"conversations": map[string]any{"backend": "sql_default", "table_name": "openai_conversations"},
			"inference":     map[string]any{"backend": "sql_default", "table_name": "inference_store"},
			"metadata":      map[string]any{"backend": "kv_default", "namespace": "registry"},
			"prompts":       map[string]any{"backend": "kv_default", "namespace": "prompts"},
		},
	}, errs
}

// usesSQLite reports whether any backend of a storage section is sqlite
// (type kv_sqlite, sql_sqlite, or a base config's plain sqlite), which is
// when the Deployment sets SQLITE_STORE_DIR.
func usesSQLite(storage any) bool {
	backends, _ := mapGet(storage, "backends")
	var found bool
	visit := func(b any) {
		if t, _ := mapGet(b, "type"); t != nil {
			if s, ok := t.(string); ok && strings.HasSuffix(s, "sqlite") {
				found = true
			}
		}
	}
	switch t := backends.(type) {
	case map[string]any:
		for _, b := range t {
			visit(b)
		}
	case map[any]any:
		for _, b := range t {
			visit(b)
		}
	}
	return found
}
