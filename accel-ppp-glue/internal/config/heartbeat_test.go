package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const cpLine = "control_plane: {address: 10.200.0.1, pfcp_port: 8805, vxlan_port: 4789}"

func withHeartbeat(t *testing.T, keys string) string {
	return applyEdits(t, string(readFixture(t, "valid.yaml")), []edit{
		{cpLine, "control_plane: {address: 10.200.0.1, pfcp_port: 8805, vxlan_port: 4789" + keys + "}"}})
}

func TestHeartbeatDefaultsAndSettings(t *testing.T) {
	cp := mustParse(t, readFixture(t, "valid.yaml")).ControlPlane
	if cp.Heartbeat != 5*time.Second || cp.HeartbeatTimeout != 3*time.Second || cp.HeartbeatTries != 3 {
		t.Errorf("defaults %v %v %d, want 29.244's 5 s heartbeat, T1 3 s, N1 3", cp.Heartbeat, cp.HeartbeatTimeout,
			cp.HeartbeatTries)
	}
	cp = mustParse(t, []byte(withHeartbeat(t, ", heartbeat_ms: 250, heartbeat_timeout_ms: 250, heartbeat_tries: 3"))).ControlPlane
	if cp.Heartbeat != 250*time.Millisecond || cp.HeartbeatTimeout != 250*time.Millisecond || cp.HeartbeatTries != 3 {
		t.Errorf("set %v %v %d", cp.Heartbeat, cp.HeartbeatTimeout, cp.HeartbeatTries)
	}
}

func TestHeartbeatBounds(t *testing.T) {
	for keys, want := range map[string]string{
		", heartbeat_ms: 10":           "control_plane.heartbeat_ms",
		", heartbeat_timeout_ms: 5":    "control_plane.heartbeat_timeout_ms",
		", heartbeat_tries: 0":         "control_plane.heartbeat_tries",
		", heartbeat_tries: 11":        "control_plane.heartbeat_tries",
		", heartbeat_ms: \"250ms\"":    "control_plane.heartbeat_ms",
		", heartbeat_timeout_ms: -250": "control_plane.heartbeat_timeout_ms",
	} {
		_, err := Parse([]byte(withHeartbeat(t, keys)))
		var errs Errors
		if err == nil || !errors.As(err, &errs) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", keys, err, want)
		}
	}
}
