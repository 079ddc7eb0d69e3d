// Package aaa is the RADIUS side of the session control plane: it asks RADIUS
// servers whether a PPP subscriber may connect (RFC 2865), reports the
// session's life and usage to them (RFC 2866, RFC 2869), and lets them
// disconnect a session or change its QoS (RFC 5176). A small local users
// file stands in for a server in labs.
//
// # Security
//
// Every request we send carries a Message-Authenticator (RFC 2869 5.14,
// RFC 3579 3.2) as its first attribute: Access-Request, Accounting-Request
// and our CoA/Disconnect answers. Every Access-Accept, -Reject and
// -Challenge must carry a valid one; a reply without it, with a wrong one,
// or with a wrong Response Authenticator (RFC 2865 3) is dropped and
// counted, and the request is handled as if the reply had been lost
// (retransmission, then the next server). Requiring it closes the
// Blast-RADIUS forgery (CVE-2024-3596): an MD5 chosen-prefix collision can
// forge a Response Authenticator but not the HMAC-MD5. Accounting-Response
// need not carry one but it is verified when present.
//
// FreeRADIUS before 3.2.5 does not add Message-Authenticator to Access
// replies by itself; a site must do `update reply { Message-Authenticator
// := 0x00 }` in post-auth and in Post-Auth-Type REJECT (the tests' config
// does). On the server side `require_message_authenticator = yes` in the
// client makes it drop our requests if we ever forgot it. Under bursts a
// FreeRADIUS listen section needs `recv_buff` raised (the tests use 4 MiB):
// with the kernel default the server's socket overflows at a few hundred
// requests in flight and the client has to retransmit.
//
// # Transport
//
// The RADIUS Identifier is one octet and scoped by the UDP 4-tuple, so one
// socket can hold only 256 requests in flight to one server, each for up to
// Timeout*(Retries+1). A BNG must carry thousands of Access-Requests a
// second (a line card rebooting), so each server address gets a pool of
// connected UDP sockets, each with its own source port and identifier
// space: Sockets are opened at first use and more, up to MaxSockets (64 by
// default, 16384 requests in flight), when every identifier is busy; beyond
// that callers wait (or their context ends). Requests are spread round
// robin over the sockets (the server's duplicate cache and any RSS hashing
// see many flows), identifiers are reused in FIFO order so a late reply to
// an abandoned request meets a different Request Authenticator and is
// dropped. One reader goroutine per socket matches replies to waiting
// requests; there is no lock held while waiting.
//
// Each transmission waits Timeout; a request is retransmitted unchanged
// (same identifier and bytes, RFC 5080 2.2.1) Retries times, then the next
// server is tried with a fresh packet (new identifier; for accounting a new
// Acct-Delay-Time). A server is declared dead for DeadTime only when it gave
// no valid reply to anybody since that request was first sent, so one lost
// packet under load does not take a healthy server out. Dead servers are
// skipped; when all are dead all are tried in order.
//
// # Attributes
//
// Access-Request: User-Name; User-Password (PAP) or CHAP-Password
// (identifier + response) with CHAP-Challenge always sent (RFC 2865 5.3,
// 5.40); NAS-IP-Address, NAS-Identifier, NAS-Port-Id (RFC 2869 5.17),
// NAS-Port-Type, Service-Type = Framed (2), Framed-Protocol = PPP (1) (not for IPoE),
// Calling-Station-Id (the client's MAC), Acct-Session-Id, Framed-MTU when
// known, and the Broadband Forum access-line attributes (vendor 3561,
// RFC 4679: Agent-Circuit-Id 1, Agent-Remote-Id 2, Actual-Data-Rate-Upstream
// 129, -Downstream 130) when the PPPoE discovery carried a TR-101 tag.
// Those tags give rates in kbit/s; RFC 4679 wants bit/s, so we multiply
// by 1000 (saturating at 2^32-1).
//
// NAS-Port-Type is Ethernet (15), not Virtual (5): the subscriber's PPPoE
// arrives over an Ethernet (QinQ) access line at this BNG. Virtual means a
// connection reached through a transit protocol (an LNS behind L2TP), which
// is not our case; 15 is also what BNGs commonly send for PPPoE, so server
// policies written for them match. (RFC 4603's PPPoEoQinQ, 35, would be
// more precise but is rarely known to existing policies.)
//
// Accounting-Request: Acct-Status-Type Start/Interim-Update/Stop, the same
// identification attributes, Acct-Authentic = RADIUS, Framed-IP-Address,
// every Class of the Accept echoed (RFC 2865 5.25), and on Interim/Stop
// Acct-Session-Time and octets split into the low 32 bits (Acct-*-Octets)
// and the high bits (Acct-*-Gigawords, RFC 2869 5.1), packets (saturated:
// there are no packet Gigawords), Acct-Terminate-Cause on Stop;
// Event-Timestamp is the event's time, Acct-Delay-Time the seconds between
// it and the sending (RFC 2866 5.2).
//
// Replies (AccessResult): Framed-IP-Address (255.255.255.254/255 and 0 mean
// "none": we allocate from the pool), Filter-Id (the QoS profile name, the
// first one), WISPr-Bandwidth-Max-Down/-Up (vendor 14122, attrs 8 and 7,
// bit/s) for explicit rates, Class (all), Session-Timeout, Idle-Timeout,
// Acct-Interim-Interval, Framed-MTU, Reply-Message (joined by newlines).
// Values of the wrong length are ignored, unknown attributes too.
//
// Why WISPr-Bandwidth-Max for explicit rates: the pair is in the stock
// dictionaries of common servers (FreeRADIUS ships dictionary.wispr), it is
// two plain 32-bit integers in bit/s, one per
// direction (no string syntax to parse as Mikrotik-Rate-Limit or Cisco
// AVPair need), vendor-neutral rather than one router maker's, and it is
// already understood by many access gateways (hotspot NASes in
// particular). The limit is 2^32-1 bit/s
// (~4.29 Gbit/s) per direction, enough for a subscriber line; faster
// profiles go by Filter-Id. 0 means "no explicit rate".
//
// # Dynamic authorization (RFC 5176)
//
// DynServer accepts Disconnect-Request and CoA-Request only from the Auth
// or Acct addresses of the configured servers, verified with their secret
// (Request Authenticator, and the Message-Authenticator when present). A
// datagram from anywhere else, with a wrong authenticator or a wrong
// Message-Authenticator is dropped without answer and counted. A request
// is identified by Acct-Session-Id, User-Name, Calling-Station-Id,
// NAS-Port-Id and/or Framed-IP-Address (none: NAK 402); NAS-Identifier and
// NAS-IP-Address, when present, must be ours (NAK 403). A CoA carries
// Filter-Id and/or the WISPr pair; any attribute we cannot apply makes the
// whole request fail (NAK 401; Service-Type Authorize-Only: NAK 405; bad
// value: NAK 407). Answers carry a Message-Authenticator, Error-Cause on
// NAK, and the request's Proxy-State. A retransmission (same source,
// identifier and authenticator within DupWindow) gets the same answer
// again without running the handler twice.
package aaa
