// Package webhookcerts lets ogx-controller run its admission webhook
// without cert-manager or any other extra software: it keeps a private CA
// and a serving certificate in a Secret of the operator namespace, renews
// them before they expire, writes the serving pair into the admission
// server's certificate directory and keeps the caBundle of the
// ValidatingWebhookConfiguration current.
//
// The work is split by who may write what:
//
//   - the leader (Manager.RunLeader) owns the API objects: EnsureSecret
//     creates, renews and repairs the Secret, SyncCABundle copies its ca.crt
//     into every webhook of the configuration. Both write nothing when
//     everything is current, so a steady state costs only GETs;
//   - every replica (Manager.RunReplica) copies tls.crt and tls.key from the
//     Secret into its own certificate directory (WriteFiles), where the
//     admission server's reloader picks them up.
//
// # Secret layout
//
// The Secret (type kubernetes.io/tls) holds tls.crt and tls.key (the
// serving pair), ca.crt (the trusted CA bundle, current CA first) and
// ca.key (the current CA's key). Keys are ECDSA P-256 in PKCS #8. The CA
// lives CALifetime, the serving certificate ServingLifetime; each is renewed
// when less than a third of its lifetime remains, or at once when it is
// missing, unparseable, mismatched or (for the serving certificate) names
// the wrong subject alternative names.
//
// # CA rotation without an outage
//
// The API server must trust a new CA before any replica serves a
// certificate signed by it. A CA rotation therefore takes two writes, one
// loop interval apart: the first adds the new CA to ca.crt (the previous
// CA stays in the bundle until it expires) and keeps the still valid serving
// certificate of the previous CA; SyncCABundle then publishes the two-CA
// bundle; the next EnsureSecret finds the serving certificate not signed by
// the current CA and reissues it. Only when the old serving certificate is
// unusable anyway (deleted or corrupted Secret) do both change at once.
//
// A Secret carrying cert-manager's annotation is left alone (see
// ErrExternallyManaged): ogx-controller would otherwise fight cert-manager
// over it. The replicas still copy its serving pair, so an install that
// kept a cert-manager Certificate of the same name goes on working.
package webhookcerts
