// Package pool hands out the IPv4 addresses of a line group's pools to PPP
// subscribers (IPCP, RFC 1332) and makes sure no address is ever given to two
// sessions at once.
//
// A Group covers the prefixes of all pools of one line group. Its state is a
// bitmap with one bit per address of those prefixes, plus a cursor: Allocate
// looks for the next clear bit after the last address it handed out, a word
// of 64 addresses at a time, so allocation is O(1) amortised and a released
// address is not handed out again until the cursor has gone round the whole
// group (a subscriber that reconnects at once does not find its old address
// in someone else's hands while stale packets are still in flight).
//
// Addresses that are never handed out: the network and broadcast addresses
// of every prefix of /30 or shorter (RFC 919, RFC 922), and the explicit
// excludes (gateway addresses and the like). A /31 has neither (RFC 3021):
// both of its addresses are given out. A /32 is one usable address.
//
// Addresses a Group did not choose itself are entered with Reserve: a
// Framed-IP-Address from RADIUS (RFC 2865 5.8), or, after a control-plane
// restart, the addresses of the sessions found in the store. Reserve them
// before the first Allocate and Allocate never returns them.
//
// Release reports whether the address was in use; releasing an address twice
// (or one never allocated) returns false and is counted, because it means the
// caller's session bookkeeping is wrong.
//
// All methods are safe for concurrent use (one mutex per Group).
package pool
