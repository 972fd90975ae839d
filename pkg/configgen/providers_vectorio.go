package configgen

import "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"

// vectorIO fills the typed vector_io kinds (docs/config-generation.md, Typed
// kinds).
func (b *configBuilder) vectorIO() bool {
	c := b.cfg
	switch p := b.entry.Provider.(type) {
	case *v1beta1.PgvectorProvider:
		b.require(refSet(p.Password), "password")
		setStr(c, "host", p.Host)
		setInt(c, "port", p.Port)
		setStr(c, "db", p.DB)
		setStr(c, "user", p.User)
		setStr(c, "distance_metric", p.DistanceMetric)
		setMap(c, "vector_index", vectorIndex(p.VectorIndex))
	case *v1beta1.MilvusProvider:
		b.require(p.URI != "", "uri")
		setStr(c, "uri", p.URI)
		setStr(c, "consistency_level", p.ConsistencyLevel)
	case *v1beta1.QdrantProvider:
		setStr(c, "url", p.URL)
		setStr(c, "host", p.Host)
		setInt(c, "port", p.Port)
		setStr(c, "location", p.Location)
		setInt(c, "grpc_port", p.GRPCPort)
		setBool(c, "prefer_grpc", p.PreferGRPC)
		setBool(c, "https", p.HTTPS)
		setStr(c, "prefix", p.Prefix)
		setInt(c, "timeout", p.Timeout)
	default:
		return false
	}
	return true
}

// vectorIndex is {hnsw: {...}} or {ivf_flat: {...}}; empty sub-maps are
// dropped, and an empty result drops the key.
func vectorIndex(ix *v1beta1.PgvectorIndex) map[string]any {
	out := map[string]any{}
	if ix == nil {
		return out
	}
	if h := ix.HNSW; h != nil {
		m := map[string]any{}
		setInt(m, "m", h.M)
		setInt(m, "ef_construction", h.EfConstruction)
		setInt(m, "ef_search", h.EfSearch)
		setMap(out, "hnsw", m)
	}
	if f := ix.IVFFlat; f != nil {
		m := map[string]any{}
		setInt(m, "nlist", f.Nlist)
		setInt(m, "nprobe", f.Nprobe)
		setMap(out, "ivf_flat", m)
	}
	return out
}
