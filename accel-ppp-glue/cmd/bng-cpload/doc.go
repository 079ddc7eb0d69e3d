// Command bng-cpload is the load client of `make bench-cp`: it plays one or
// more bng-dp instances towards a running bng-cp, on loopback, and measures
// how fast the CP sets sessions up.
//
// Each emulated DP has a control address (127.x) with two UDP sockets:
//
//   - VXLAN (RFC 7348, UDP 4789, VNI = the instance id), carrying whole
//     Ethernet QinQ access frames as docs/dp/control-frames.md describes. Behind
//     it the loader emulates one CPE per session: PPPoE discovery (RFC 2516:
//     PADI with Host-Uniq = the session index and the TR-101 access-line tag,
//     PADO, PADR echoing AC-Cookie and Relay-Session-Id, PADS), LCP (RFC 1661:
//     it acks the CP's Configure-Request, Naks an authentication protocol it
//     does not run, and sends its own with MRU 1492 and a magic number), PAP
//     (RFC 1334) or CHAP-MD5 (RFC 1994), IPCP (RFC 1332 and RFC 1877: asks
//     for 0.0.0.0 and DNS servers and takes what the CP Naks), answers LCP
//     echoes and Terminate-Requests. Dual-stack CPEs (-dual-stack-dp ID: every
//     session of that instance; -dual-stack-every N: every Nth session) also run
//     IPv6CP (RFC 5072: the modified EUI-64 of the MAC, a Nak'd identifier
//     taken), send a Router Solicitation, and on the RA's /64 a DHCPv6 Solicit
//     with Rapid Commit and IA_PD (RFC 8415); IPv4-only CPEs Protocol-Reject
//     the CP's IPv6CP (RFC 1661 5.7). IPoE CPEs (-ipoe-dp ID: every session
//     of that instance) run DHCPv4 (RFC 2131) instead: a broadcast DISCOVER
//     and REQUEST with option 82 (circuit id -ipoe-user), OFFER and ACK from
//     the AC MAC; such an instance announces IPoE in its BBF UP features.
//   - PFCP (3GPP TS 29.244 with the BBF TR-459 IEs of docs/dp/pfcp.md), the
//     user-plane side: it answers Association Setup with UP features 00 00 10
//     and BBF UP features 11 00 00 00, heartbeats, Session Establishment with an
//     F-SEID, Modification and Deletion, like bng-dp.
//
// A session's clock runs from its PADI to the moment the loader has answered
// the Session Establishment Request that names it: the upstream PDR's client
// MAC (02:b1 + the session index) finds the session, whose PPPoE session id,
// S-tag, C-tag and IPCP address must then match; a dual-stack session runs
// on until its delegated prefix is bound and the DP has its IPv6 PDRs (in the
// establishment, or a later Session Modification creating them); an IPoE session
// needs its ACK too and an establishment without PPPoE session id whose
// upstream and downstream UE IP are the offered address. A session counts only when
// complete; the loader prints one JSON line with the rate and latencies.
//
// The codecs here are the loader's own, independent of internal/pppoe,
// internal/ppp and go-pfcp, so the benchmark also checks the CP's wire format
// from outside. Every frame and datagram the CP sends is treated as hostile:
// decoders bound every length and odd input is only counted.
package main
