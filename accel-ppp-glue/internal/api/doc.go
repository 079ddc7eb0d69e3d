// Package api is the control plane's management API: the JSON views the
// daemon (bng-cp) serves and bngcpctl prints, and a small client.
//
// Transport: HTTP/1.1 (RFC 9110, RFC 9112) over a unix stream socket, by
// default /run/bngpod/cp.sock. Bodies are JSON (RFC 8259) with snake_case
// names; times are RFC 3339 strings; addresses are in their text forms; rates
// are bit/s. A failed request answers 4xx or 5xx with the body
// {"error": "..."} (ErrorBody).
//
//	GET    /v1/sessions[?instance=N&user=U&state=S]  []SessionView (filters AND-ed)
//	GET    /v1/sessions/ID                            SessionView, 404 when unknown
//	DELETE /v1/sessions/ID                            terminate: SessionView (200) or no body (202/204)
//	GET    /v1/pools                                  []PoolView
//	GET    /v1/instances                              []InstanceView
//	GET    /v1/stats                                  Stats: an object of counters, nested by subsystem
//
// The daemon side is in bng-cp; this package gives it the types and a few
// helpers (SessionFilter parsing and matching, WriteJSON, WriteError) so both
// ends agree on the bytes.
package api
