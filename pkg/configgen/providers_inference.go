package configgen

import "github.com/ogx-k8s/ogx-controller/pkg/apis/ogx/v1beta1"

// inference fills the config of the six typed inference kinds
// (docs/config-generation.md, Typed kinds) and reports whether the entry was
// one of them.
func (b *configBuilder) inference(identity bool) bool {
	c := b.cfg
	var common *v1beta1.RemoteInferenceCommon
	switch p := b.entry.Provider.(type) {
	case *v1beta1.VLLMProvider:
		b.require(p.Endpoint != "", "endpoint")
		setStr(c, "base_url", p.Endpoint)
		setInt(c, "max_tokens", p.MaxTokens)
		common = &p.RemoteInferenceCommon
	case *v1beta1.OpenAIProvider:
		b.require(refSet(p.APIKey), "apiKey")
		setStr(c, "base_url", p.Endpoint)
		common = &p.RemoteInferenceCommon
	case *v1beta1.AzureProvider:
		b.require(p.Endpoint != "", "endpoint")
		b.require(refSet(p.APIKey), "apiKey")
		setStr(c, "base_url", p.Endpoint)
		setStr(c, "api_version", p.APIVersion)
		setStr(c, "api_type", p.APIType)
		common = &p.RemoteInferenceCommon
	case *v1beta1.BedrockProvider:
		b.require(p.Region != "", "region")
		bedrock(c, p)
		common = &p.RemoteInferenceCommon
	case *v1beta1.VertexAIProvider:
		b.require(p.Project != "", "project")
		setStr(c, "project", p.Project)
		setStr(c, "location", p.Location)
		common = &p.RemoteInferenceCommon
	case *v1beta1.WatsonxProvider:
		b.require(refSet(p.APIKey), "apiKey")
		setStr(c, "base_url", p.Endpoint)
		setStr(c, "project_id", p.ProjectID)
		setInt(c, "timeout", p.Timeout)
		common = &p.RemoteInferenceCommon
	default:
		return false
	}
	setBool(c, "refresh_models", common.RefreshModels)
	setList(c, "allowed_models", common.AllowedModels)
	setMap(c, "network", networkBlock(common.Network, identity))
	return true
}

func bedrock(c map[string]any, p *v1beta1.BedrockProvider) {
	setStr(c, "region_name", p.Region)
	setStr(c, "aws_role_arn", p.AWSRoleArn)
	setStr(c, "aws_web_identity_token_file", p.AWSWebIdentityTokenFile)
	setStr(c, "aws_role_session_name", p.AWSRoleSessionName)
	setStr(c, "profile_name", p.ProfileName)
	setStr(c, "retry_mode", p.RetryMode)
	setInt(c, "total_max_attempts", p.TotalMaxAttempts)
	setInt(c, "connect_timeout", p.ConnectTimeout)
	setInt(c, "read_timeout", p.ReadTimeout)
	setInt(c, "session_ttl", p.SessionTTL)
}

// networkBlock builds a typed inference provider's network map from its
// non-empty parts only. With a client identity (spec.tls.identity), the
// mounted certificate and key are merged into network.tls
// (docs/config-generation.md, TLS).
func networkBlock(n *v1beta1.RemoteNetworkConfig, identity bool) map[string]any {
	out := map[string]any{}
	tls := map[string]any{}
	if n != nil {
		if t := n.TLS; t != nil {
			setBool(tls, "verify", t.Verify)
			setStr(tls, "min_version", t.MinVersion)
			setList(tls, "ciphers", t.Ciphers)
		}
		if p := n.Proxy; p != nil {
			proxy := map[string]any{}
			setStr(proxy, "url", p.URL)
			setStr(proxy, "http", p.HTTP)
			setStr(proxy, "https", p.HTTPS)
			setStr(proxy, "cacert", p.CACert)
			setList(proxy, "no_proxy", p.NoProxy)
			setMap(out, "proxy", proxy)
		}
		if t := n.Timeout; t != nil {
			timeout := map[string]any{}
			setInt(timeout, "connect", t.Connect)
			setInt(timeout, "read", t.Read)
			setMap(out, "timeout", timeout)
		}
		if len(n.Headers) > 0 {
			headers := make(map[string]any, len(n.Headers))
			for k, v := range n.Headers {
				headers[k] = v
			}
			out["headers"] = headers
		}
	}
	if identity {
		tls["client_cert"] = clientCertFile
		tls["client_key"] = clientKeyFile
	}
	setMap(out, "tls", tls)
	return out
}
