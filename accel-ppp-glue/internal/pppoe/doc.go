// Package pppoe encodes and decodes the PPPoE frames the control plane sees:
// discovery (PADI, PADO, PADR, PADS, PADT) and session frames, as a DP
// instance redirects them from its access ports (Ethernet with an outer
// 802.1ad or 802.1Q tag and an optional inner 802.1Q tag).
//
// References:
//   - RFC 2516, A Method for Transmitting PPP Over Ethernet: the header
//     (version 1, type 1, code, session id, length), the discovery stage
//     and its tags (section 5 and appendix A).
//   - RFC 4638, PPP-Max-Payload tag (0x0120): a client able to carry a PPP
//     MRU larger than 1492 over a mini-jumbo Ethernet says so in PADI/PADR.
//   - Broadband Forum TR-101, section 3.9.3: an intermediate agent (the
//     access node) adds a Vendor-Specific tag (0x0105) with enterprise number
//     3561 (ADSL Forum / BBF) whose sub-options carry the line's Agent
//     Circuit ID (0x01), Agent Remote ID (0x02) and actual data rates
//     upstream (0x81) and downstream (0x82) in kbit/s.
//
// Everything here is sans-IO and allocation-light: DecodeFrame and ParseTags
// return slices that alias the input, AppendFrame and AppendTag append to a
// caller's buffer. Input is hostile: every decoder checks lengths and returns
// one of the sentinel errors below (use errors.Is), it never panics.
//
// CookieJar makes and checks AC-Cookie values (RFC 2516 5.2 lets the access
// concentrator use the cookie to resist PADR floods): an HMAC-SHA256 over the
// client MAC, the S-tag, the C-tag and a time bucket, so the CP keeps no state
// between PADO and PADR.
package pppoe
