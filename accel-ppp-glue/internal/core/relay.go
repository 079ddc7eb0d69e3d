package core

import "time"

// relayState is a relay-mode session's state (relay mode: relay.go).
type relayState struct{}

func (sh *shard) relayFromClient(now time.Time, x *ipoeIn, s *session) {
	sh.drop("ipoe_relay_unavailable", "DHCP relay mode is not running", "line_group", x.line.Group.Name)
}

func (sh *shard) relayAuthorized(s *session, x *ipoeIn) {
	sh.teardown(s, causeNASError, padtNone, "DHCP relay mode is not running")
}
