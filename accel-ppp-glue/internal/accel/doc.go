// Package accel is bng-accel-glue's side of accel-ppp: it reads accel-ppp's
// session events in the formats accel-ppp documents and turns them into the
// same PFCP installs bng-cp makes (docs/cp/accel-ppp.md).
//
// Where accel-ppp's events come from, and the code that reads each:
//
//   - event.go: one Event from either source: a JSON message of the redis
//     module of the BISDN/Altran accel-ppp fork (accel-pppd/redis/redis.c:
//     event, ctrl_type, session_id, calling_station_id, ctrl_ifname, ip_addr,
//     pppoe_sessionid, ...), or a pppd-compat script call of upstream
//     accel-ppp (accel-pppd/extra/pppd_compat.c: argv ifname, "none", "0",
//     local and peer address, Calling-Station-Id; environment PEERNAME,
//     CALLING_SID, CALLED_SID and, at the end, CONNECT_TIME, BYTES_*, PACKETS_*).
//   - redis.go: a SUBSCRIBE client of the RESP protocol (the fork PUBLISHes).
//   - hook.go: the unix socket between `bng-accel-glue hook` (the script
//     accel-ppp runs) and the daemon.
//   - procpppoe.go: /proc/net/pppoe, where upstream accel-ppp's PPPoE session
//     ids are (its events do not carry them).
//   - radattr.go: pppd-compat's radattr files (the Access-Accept's attributes),
//     for the session's rates.
//   - cli.go: accel-ppp's CLI on TCP (`show sessions` with chosen columns,
//     `terminate sid`), for the re-sync after a restart and to end sessions
//     the data plane declares dead.
//   - line.go: the control interface's name (vx<instance>.<S-tag>.<C-tag>, as
//     topology/bngpod/accel.py names them) to the instance and line of cp.yaml.
//   - glue.go: the daemon: the session store, PFCP through the same
//     pfcpcp.Function bng-cp uses, accounting from the DP's usage reports.
//
// Every input is hostile: a malformed event is an error counted by reason
// and logged once per reason, never a crash.
package accel
