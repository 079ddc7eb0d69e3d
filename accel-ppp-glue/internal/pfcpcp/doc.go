// Package pfcpcp is bngpod's PFCP control-plane function: the side of the
// CP/UP split (BBF TR-459 "SCi", carried by PFCP, 3GPP TS 29.244) that tells
// every bng-dp instance which subscriber sessions to forward and how.
//
// The wire profile is docs/dp/pfcp.md; this package sends exactly its byte
// layouts and is checked against the DP's own encoder and user-plane function
// (server-dp/build/tests/pfcp-encode-samples and pfcp-up-pipe) in its tests
// (BNGPOD_DP_BUILD selects another server-dp build directory, BNGPOD_DP_INI
// another dp1.ini for the test against the real bng-dp).
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
//     plus Update PDRs instead (of every PDR the Mod says the session has:
//     IPv6PDRs, HasPD, NoIPv4).
//   - Dual stack (docs/dp/pfcp.md "Dual stack"): Session.IPv6 adds PDR 3
//     (upstream, PPP protocol 0x0057), PDR 4 (the /64) and PDR 5 (the
//     delegated prefix) and, with usage reporting, URRs 2 (IPv4: PDRs 1, 2)
//     and 3 (IPv6: PDRs 3-5) beside URR 1 (every PDR); an IPv4-only session is
//     exactly the message of before. A session without IPv4 address and with
//     IPv6 is IPv6-only (PDRs 3-5). Mod.AddIPv6 adds the IPv6 PDRs to an
//     established session (Update PDR 1, 2 for the URR lists, Create URR 2, 3).
//     Session.RA and Mod.RA / Mod.RAOff carry bngpod's RA offload IE
//     (enterprise 32473, type 32769); LineGroup.CoreAddress6 the Line Group
//     IE's IPv6 trailer. Usage.URRID tells the reports apart (URRTotal,
//     URRIPv4, URRIPv6).
//
// Reserved CP SEIDs: those with bit 63 set belong to this package (the
// default sessions); the caller's subscriber sessions use the others.
package pfcpcp
