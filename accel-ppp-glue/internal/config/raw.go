package config

import "gopkg.in/yaml.v3"

// The raw* types mirror cp.yaml one to one for the strict decoder. Scalars
// are kept as yaml.Node so that the validator sees the text, the resolved tag
// and the line of every value and can report problems with their location;
// a zero Node (Kind 0) is a key that was not present. Mappings and sequences
// that may be null are pointers or slices, nil when missing or null.

type rawConfig struct {
	Pod          yaml.Node        `yaml:"pod"`
	ControlPlane *rawControlPlane `yaml:"control_plane"`
	Management   *rawManagement   `yaml:"management"`
	Radius       *rawRadius       `yaml:"radius"`
	AccessPorts  []*rawAccessPort `yaml:"access_ports"`
	Pools        []*rawPool       `yaml:"pools"`
	QosProfiles  []*rawQosProfile `yaml:"qos_profiles"`
	LineGroups   []*rawLineGroup  `yaml:"line_groups"`
	Instances    []*rawInstance   `yaml:"instances"`
	ONOS         *rawONOS         `yaml:"onos"`
	Core6        *rawCore6        `yaml:"core6"`
	IPv6RA       *rawIPv6RA       `yaml:"ipv6_ra"`
	IPv6Pools    []*rawIPv6Pool   `yaml:"ipv6_pools"`
}

type rawCore6 struct {
	Subnet yaml.Node `yaml:"subnet"`
	Router yaml.Node `yaml:"router"`
}

type rawIPv6RA struct {
	Interval       yaml.Node `yaml:"interval"`
	RouterLifetime yaml.Node `yaml:"router_lifetime"`
}

type rawIPv6Pool struct {
	Name            yaml.Node   `yaml:"name"`
	WANPrefix       yaml.Node   `yaml:"wan_prefix"`
	DelegatedPrefix yaml.Node   `yaml:"delegated_prefix"`
	DelegatedLength yaml.Node   `yaml:"delegated_length"`
	IANA            yaml.Node   `yaml:"ia_na"`
	DNS             []yaml.Node `yaml:"dns"`
	LineGroup       yaml.Node   `yaml:"line_group"`
}

type rawONOS struct {
	URL           yaml.Node `yaml:"url"`
	Username      yaml.Node `yaml:"username"`
	Password      yaml.Node `yaml:"password"`
	CPName        yaml.Node `yaml:"cp_name"`
	PollInterval  yaml.Node `yaml:"poll_interval"`
	PlacementWait yaml.Node `yaml:"placement_wait"`
	Timeout       yaml.Node `yaml:"timeout"`
	SebaStrict    yaml.Node `yaml:"seba_strict"`
}

type rawControlPlane struct {
	Address            yaml.Node `yaml:"address"`
	PFCPPort           yaml.Node `yaml:"pfcp_port"`
	VXLANPort          yaml.Node `yaml:"vxlan_port"`
	HeartbeatMS        yaml.Node `yaml:"heartbeat_ms"`
	HeartbeatTimeoutMS yaml.Node `yaml:"heartbeat_timeout_ms"`
	HeartbeatTries     yaml.Node `yaml:"heartbeat_tries"`
}

type rawManagement struct {
	Subnet yaml.Node `yaml:"subnet"`
}

type rawRadius struct {
	NASIdentifier yaml.Node          `yaml:"nas_identifier"`
	CoAPort       yaml.Node          `yaml:"coa_port"`
	TimeoutMS     yaml.Node          `yaml:"timeout_ms"`
	Retries       yaml.Node          `yaml:"retries"`
	Servers       []*rawRadiusServer `yaml:"servers"`
	IPv6Octets    yaml.Node          `yaml:"ipv6_octets_attribute"`
}

type rawRadiusServer struct {
	Name     yaml.Node `yaml:"name"`
	Address  yaml.Node `yaml:"address"`
	AuthPort yaml.Node `yaml:"auth_port"`
	AcctPort yaml.Node `yaml:"acct_port"`
	Secret   yaml.Node `yaml:"secret"`
}

type rawAccessPort struct {
	Name yaml.Node `yaml:"name"`
	TPID yaml.Node `yaml:"tpid"`
	Rate yaml.Node `yaml:"rate"`
}

type rawPool struct {
	Name      yaml.Node   `yaml:"name"`
	Prefix    yaml.Node   `yaml:"prefix"`
	DNS       []yaml.Node `yaml:"dns"`
	LineGroup yaml.Node   `yaml:"line_group"`
	Gateway   yaml.Node   `yaml:"gateway"`
}

type rawQosProfile struct {
	Name     yaml.Node   `yaml:"name"`
	DownRate yaml.Node   `yaml:"down_rate"`
	UpPIR    yaml.Node   `yaml:"up_pir"`
	UpCIR    yaml.Node   `yaml:"up_cir"`
	UpDSCP   yaml.Node   `yaml:"up_dscp"`
	Classes  []*rawClass `yaml:"classes"`
}

type rawClass struct {
	TC      yaml.Node   `yaml:"tc"`
	Name    yaml.Node   `yaml:"name"`
	DSCP    []yaml.Node `yaml:"dscp"`
	Rate    yaml.Node   `yaml:"rate"`
	Weights []yaml.Node `yaml:"weights"`
}

type rawLineGroup struct {
	Name         yaml.Node   `yaml:"name"`
	ACMAC        yaml.Node   `yaml:"ac_mac"`
	CoreAddress  yaml.Node   `yaml:"core_address"`
	CoreMAC      yaml.Node   `yaml:"core_mac"`
	Pools        []yaml.Node `yaml:"pools"`
	QosProfile   yaml.Node   `yaml:"qos_profile"`
	Instance     yaml.Node   `yaml:"instance"`
	CoreAddr6    yaml.Node   `yaml:"core_address6"`
	IPv6Pools    []yaml.Node `yaml:"ipv6_pools"`
	SessionTypes []yaml.Node `yaml:"session_types"`
	IPoE         *rawIPoE    `yaml:"ipoe"`
}

type rawIPoE struct {
	Mode      yaml.Node     `yaml:"mode"`
	LeaseTime yaml.Node     `yaml:"lease_time"`
	RenewTime yaml.Node     `yaml:"renew_time"`
	MaxMACs   yaml.Node     `yaml:"max_macs"`
	Username  yaml.Node     `yaml:"username"`
	Password  yaml.Node     `yaml:"password"`
	ProxyARP  yaml.Node     `yaml:"proxy_arp"`
	Relay     *rawIPoERelay `yaml:"relay"`
	ARPPing   *rawARPPing   `yaml:"arp_ping"`
}

type rawARPPing struct {
	Interval yaml.Node `yaml:"interval"`
	Count    yaml.Node `yaml:"count"`
}

type rawIPoERelay struct {
	Servers  []yaml.Node `yaml:"servers"`
	Option82 yaml.Node   `yaml:"option82"`
}

type rawInstance struct {
	ID             yaml.Node   `yaml:"id"`
	Name           yaml.Node   `yaml:"name"`
	ControlAddress yaml.Node   `yaml:"control_address"`
	DataMAC        yaml.Node   `yaml:"data_mac"`
	LineGroups     []yaml.Node `yaml:"line_groups"`
	Lines          []*rawLine  `yaml:"lines"`
}

type rawLine struct {
	Group      yaml.Node `yaml:"group"`
	AccessPort yaml.Node `yaml:"access_port"`
	STag       *rawRange `yaml:"stag"`
	CTag       *rawRange `yaml:"ctag"`
}

type rawRange struct {
	Min yaml.Node `yaml:"min"`
	Max yaml.Node `yaml:"max"`
}
