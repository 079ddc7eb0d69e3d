// Package ppp is the PPP engine of one PPPoE session, written sans-IO: the
// caller feeds it the PPP frames of the subscriber (Input), the passage of
// time (Tick, NextDeadline) and the answers of the AAA back end (AuthResult),
// and collects the frames to send and the events of the session (Drain).
// Nothing here reads a socket, starts a goroutine or looks at the clock.
//
// A Link runs the phases of RFC 1661 section 3: Establish (LCP), Authenticate
// (PAP or CHAP-MD5), Network (IPCP), Terminate, Dead. LCP and IPCP share one
// implementation of the option-negotiation automaton of RFC 1661 section 4
// (states Initial to Opened, restart timer, Max-Configure, Max-Terminate,
// Max-Failure); each protocol contributes only its options.
//
// Two departures from a plain active open, for links where the first frames
// may be reordered on the way (a switch between a PPPoE AC and its
// subscribers): with StartDelay, Start is a passive open (LCP waits in
// Stopped for the peer's first LCP packet, at most StartDelay, RFC 1661 4.2's
// implementation option), and with RestartFirst the restart timer after a
// first Configure-Request starts short and doubles up to Restart, so a lost
// first request costs little; Max-Configure bounds the requests as ever.
//
// What the link negotiates, as the access concentrator of a PPPoE session:
//
//   - LCP (RFC 1661 section 6, RFC 2516 section 7): we request our MRU
//     (MaxMRU: 1492, or more when the client offered RFC 4638
//     PPP-Max-Payload), the authentication protocol and our Magic-Number.
//     Of the peer's options we accept MRU (a value above MaxMRU or below 128 is
//     Nak'd) and Magic-Number (zero or our own number is Nak'd; our own number
//     repeatedly means a looped-back line). Everything else is
//     Configure-Rejected: Async-Control-Character-Map, Protocol- and
//     Address-and-Control-Field-Compression and FCS-Alternatives make no sense
//     on Ethernet and RFC 2516 forbids them; Authentication-Protocol (we do not
//     authenticate ourselves to subscribers), Quality-Protocol, numbered mode,
//     callback, multilink and all unknown options are refused too.
//
//   - PAP (RFC 1334) and CHAP with MD5 (RFC 1994): the Link does not know
//     passwords. It emits EvAuth with what the peer sent and waits for
//     AuthResult; CHAP challenges are 16 random bytes, retransmitted on the
//     restart timer, and only a Response with the identifier of the current
//     challenge counts. The peer must get through LCP and authentication
//     within AuthTimeout (the timer stops once EvAuth is out: the back end's
//     answer is the caller's business).
//
//   - IPCP (RFC 1332, RFC 1877): we request our own IP-Address and Nak the
//     peer's IP-Address and DNS server options to the values given by SetIPv4
//     (a peer that asks for no address is Nak'd with one appended);
//     IP-Compression-Protocol, the old IP-Addresses option, NBNS and everything
//     else are rejected. EvUp carries the subscriber's address.
//
//   - LCP Echo-Requests are answered with our Magic-Number, Discard-Requests
//     ignored, unknown codes Code-Rejected, and every protocol other than LCP,
//     PAP, CHAP, IPCP and IPv4 (and IPv6CP and IPv6 when SetIPv6 was not
//     called: no IPv6 for this subscriber) answered with an LCP Protocol-Reject, which the RFC says must not
//     disturb the rest of the link. Optionally (EchoInterval) the Link sends
//     its own Echo-Requests and declares the link dead after EchoFailures
//     unanswered ones; normally the DP does that (LCP offload).
//
//   - IPv6CP (RFC 5072), when SetIPv6 enabled it: opened beside IPCP; we
//     request our Interface-Identifier (a Nak changes it to the peer's
//     suggestion, or to another one) and Nak a peer identifier of zero or
//     equal to ours with a unique one; IPv6-Compression-Protocol and unknown
//     options are rejected. EvUp6 carries both identifiers. Either network
//     protocol may fail alone (EvNCPDown: Max-Configure reached, the peer's
//     Protocol-Reject or Terminate-Request); the link ends when neither is
//     left, or when neither opened within AuthTimeout. IPv6 frames are the
//     caller's (RS, DHCPv6 to the CP; data to the DP).
//
// Deliberate differences from a general-purpose PPP implementation, because
// a PPPoE session ends with a PADT anyway: LCP is renegotiated only before
// the peer has authenticated (a peer that missed our Configure-Ack sends its
// Configure-Request again: RFC 1661's Opened/RCR transition, after which
// authentication starts afresh). A peer Configure-Request once the
// credentials are with the CP ends the link (EvDown DownLCPFailed); a stray
// Configure-Ack/Nak/Reject in Opened is discarded. A peer Terminate-Request
// is acknowledged and ends the link at once (DownPeerTerminate, with
// EvDown.Acked: the caller waits for the peer to end the PPPoE session, as
// Stopping would wait a restart period for the lower layer); an IPCP
// Terminate-Request from the peer terminates LCP too.
//
// Restored is the PPP side of a session taken up again after a CP restart,
// without a Link: it answers echoes and a Terminate-Request, and ends the
// session on a renegotiation.
//
// Every input is hostile: malformed packets are counted and dropped, and no
// packet longer than the peer's MRU is ever emitted (Echo-Reply, Code-Reject
// and Protocol-Reject are cut to fit, other packets that would not fit are
// dropped and counted).
package ppp
