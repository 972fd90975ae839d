// Package tlsserve is the listener mechanism shared by the admission and the
// metrics servers: a serving pair re-read from files (CertReloader) and the
// Start/Shutdown/Run lifecycle of one net/http server around it (Server).
//
// It exists so the two servers cannot drift apart in how they reload
// certificates, drain requests or report errors; each keeps only what is
// its own (handlers, options, defaults) and wraps a Server.
package tlsserve
