// Package pfcpcp is bngpod's PFCP control-plane function: the side of the
// CP/UP split (BBF TR-459 "SCi", carried by PFCP, 3GPP TS 29.244) that tells
// every bng-dp instance which subscriber sessions to forward and how.
//
// The wire profile is docs/dp/pfcp.md; this package sends exactly its byte
// layouts and is checked against the DP's own encoder and user-plane function
// (server-dp/build/tests/pfcp-encode-samples and pfcp-up-pipe) in its tests.
//
// What it does:
//
//   - One UDP socket (port 8805, 29.244 4.2) for all configured DP instances.
//     Datagrams from any other address are counted and dropped unanswered.
//   - Association Setup (29.244 6.2.6) with every DP, retried until it answers;
//     the DP's Recovery Time Stamp, UP Function Features and BBF UP Function
//     Features (TR-459: the LCP keepalive offload bit) are recorded.
//   - Heartbeats both ways (29.244 6.2.2): the DP's are answered, ours go out
//     every Config.Heartbeat. N1 unanswered transmissions mark the DP down
//     (Handler.PeerDown) and association starts again. A Recovery Time Stamp
//     that differs from the one recorded, in any heartbeat or association
//     answer, means the DP restarted with no sessions: PeerDown, re-associate,
//     PeerUp with the new time so the caller re-installs its sessions.
//   - The default session (docs/dp/pfcp.md section 7): after each association
//     the CP installs it with a fixed CP SEID (DefaultSessionSEID), so that a
//     restarted CP re-sends the same request and the DP answers cause 1 with
//     the session it already has. Its FAR sends discovery, PPP control and
//     unknown-session frames to the CP's VXLAN endpoint (Config.Redirect).
//   - Session Establishment / Modification / Deletion (29.244 7.5.2, 7.5.4,
//     7.5.6) for subscriber sessions, and the answers to the DP's Session
//     Report Requests (7.5.8): usage reports (USAR) and the bngpod LCP dead
//     report (UPIR + BBF PPP LCP Connectivity) go to the Handler.
//   - Reliable delivery (29.244 6.4): every request is retransmitted with the
//     same bytes every T1 up to N1 transmissions; answers are matched by
//     sequence number (one map), duplicate answers are ignored; the DP's
//     retransmitted requests are answered from a small cache without reaching
//     the Handler twice. One reader goroutine and one timer goroutine (a heap
//     of deadlines) serve any number of concurrent callers.
//
// Every datagram is hostile: the decoder (decode.go) checks every length
// and returns errors; FuzzInput feeds it random datagrams.
//
// Callbacks: Handler methods run on one goroutine of their own, in the order
// the events happened; they may call Establish/Modify/Delete (the queue
// between the reader and the handler is unbounded, so nothing deadlocks).
//
// For the caller (the session manager):
//
//   - PeerUp comes after every (re-)association, with the DP's Recovery Time
//     Stamp: the same time as before means the DP kept its sessions (it was
//     only unreachable); a new time means it lost them: establish them again
//     (same CP SEIDs are fine). A restart gives PeerDown first.
//   - Handler.Usage gets every usage report: the DP's Session Reports and the
//     reports in Modify and Delete answers (which Modify/Delete also return,
//     for convenience); count usage in the handler only.
//   - Sessions established by a previous run of the CP: call Restore so that
//     the DP's reports for them are answered cause 1 (else cause 65).
//   - Mod.QueryUsage sends PFCPSMReq-Flags QAURR (all URRs) rather than a
//     Query URR per id: it works whether or not the session has a URR.
//   - Mod rates on a session established without rates (no QER): the DP
//     refuses the Update QER (cause 73, QER 1) and Modify sends Create QER
//     plus Update PDRs instead.
//
// Reserved CP SEIDs: those with bit 63 set belong to this package (the
// default sessions); the caller's subscriber sessions use the others.
package pfcpcp
