// Package core is the session control plane of bngpod: it turns subscribers'
// PPPoE control frames, redirected by the DP instances in VXLAN, into
// sessions installed in those instances with PFCP.
//
// A session's life: PADI -> PADO (only for a line the redirecting instance
// serves, with an AC-Cookie) -> PADR (cookie checked; a second PADR of the
// same CPE replaces its stale session) -> PADS with a session id unique per
// access port and S-tag -> LCP, PAP or CHAP checked by RADIUS (or a users
// file) -> an address from RADIUS (inside the line group's pools) or from
// the pools -> IPCP -> PFCP Session Establishment (TR-459 rules, BBF MTU, LCP
// keepalive offload) -> persisted -> Accounting-Start. LCP speaks first only
// once the client has (it has the PADS then) or after a short start delay.
// Usage reports from the DP become Interims; a PADT, an LCP Terminate, a
// dead-peer report from the DP, a Disconnect-Request, an operator or a
// Session-Timeout end it: the LCP Terminate exchange, then the PADT (the
// subscriber's, or ours once the exchange is over or after a short wait:
// closing.go), then PFCP deletion (final usage) and the store record,
// Accounting-Stop, address and id released.
//
// Seams (seams.go): the daemon holds an authenticator (RADIUS or a users
// file), an accountant (RADIUS), a user plane (the PFCP function) and a
// session store as interfaces; the control-frame redirect is internal/vxlan,
// with the CP's allow-list in redirect.go.
//
// Concurrency: sessions are sharded by client MAC; each shard's goroutine
// owns its sessions' state, and blocking work (RADIUS, PFCP, the store) runs
// in goroutines that post their results back to the shard. The store is
// written with group commit, so thousands of sessions per second share few
// fsyncs.
//
// Restarts: established sessions are persisted, so a restarted CP takes
// them up again (same Acct-Session-Id; the DP kept forwarding and answering
// echoes); a DP that restarted (new Recovery Time Stamp) gets every session
// it served installed again at once.
package core
