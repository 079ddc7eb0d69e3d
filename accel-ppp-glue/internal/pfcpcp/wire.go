package pfcpcp

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/wmnsk/go-pfcp/ie"
	"github.com/wmnsk/go-pfcp/message"
)

// Message types (29.244 7.3).
const (
	msgHeartbeatReq          = 1
	msgHeartbeatRsp          = 2
	msgAssocSetupReq         = 5
	msgAssocSetupRsp         = 6
	msgVersionNotSupp        = 11
	msgSessEstReq            = 50
	msgSessEstRsp            = 51
	msgSessModReq            = 52
	msgSessModRsp            = 53
	msgSessDelReq            = 54
	msgSessDelRsp            = 55
	msgSessReportReq         = 56
	msgSessReportRsp         = 57
	enterpriseBBF     uint16 = 3561
)

// IE types used by the profile (29.244 8.1.2 and TR-459).
const (
	ieCreatePDR        = 1
	iePDI              = 2
	ieCreateFAR        = 3
	ieForwardingParams = 4
	ieCreateURR        = 6
	ieCreateQER        = 7
	ieUpdatePDR        = 9
	ieUpdateFAR        = 10
	ieUpdateFwdParams  = 11
	ieUpdateQER        = 14
	ieRemovePDR        = 15
	ieRemoveURR        = 17
	ieCause            = 19
	ieSourceInterface  = 20
	ieGateStatus       = 25
	ieMBR              = 26
	ieGBR              = 27
	iePrecedence       = 29
	ieReportingTrig    = 37
	ieReportType       = 39
	ieOffendingIE      = 40
	ieForwardingPolicy = 41
	ieDestInterface    = 42
	ieUPFeatures       = 43
	ieApplyAction      = 44
	ieSMReqFlags       = 49
	ieSDFFilter        = 23
	iePDRID            = 56
	ieFSEID            = 57
	ieNodeID           = 60
	ieMeasMethod       = 62
	ieUsageRepTrigger  = 63
	ieMeasPeriod       = 64
	ieVolumeMeas       = 66
	ieDurationMeas     = 67
	ieStartTime        = 75
	ieEndTime          = 76
	ieUsageRepMod      = 78
	ieUsageRepDel      = 79
	ieUsageRepReport   = 80
	ieURRID            = 81
	ieOHC              = 84
	ieCPFeatures       = 89
	ieUEIPAddress      = 93
	ieRecoveryTS       = 96
	ieURSEQN           = 104
	ieFARID            = 108
	ieQERID            = 109
	ieFailedRuleID     = 114
	ieEthPacketFilter  = 132
	ieMACAddress       = 133
	ieCTAG             = 134
	ieSTAG             = 135
	ieEthertype        = 136

	ieBBFUPFeatures  = 32768
	ieBBFLogicalPort = 32769
	ieBBFOHC         = 32770
	ieBBFOHR         = 32771
	ieBBFPPPoESID    = 32772
	ieBBFPPPProtocol = 32773
	ieBBFVerifTimers = 32774
	ieBBFLCPMagic    = 32775
	ieBBFMTU         = 32776
	ieBBFLCPConn     = 32780

	// bngpod's own IEs (EnterpriseBngpod, docs/dp/pfcp.md)
	ieBngpodRAOffload = 32769
	ieBngpodARPPing   = 32770
	ieBngpodDropped   = 32771 // in a Usage Report: the session's dropped packets and octets (docs/dp/pfcp.md)
	enterpriseBngpod  = EnterpriseBngpod
)

// Causes (29.244 8.2.1) the package names.
const (
	CauseAccepted                  = 1
	CauseRequestRejected           = 64
	CauseSessionNotFound           = 65
	CauseNoAssociation             = 72
	CauseRuleFailure               = 73
	CauseServiceNotSupported       = 76
	reportTypeUSAR           uint8 = 0x02
	reportTypeUPIR           uint8 = 0x08
	smReqFlagQAURR           uint8 = 0x04
)

// Usage Report Trigger bits as Usage.Trigger holds them: octet 5 of the IE
// in bits 0-7, octet 6 in bits 8-15, octet 7 in bits 16-23.
const (
	TriggerPERIO uint32 = 0x01
	TriggerVOLTH uint32 = 0x02
	TriggerIMMER uint32 = 0x80
	TriggerTERMR uint32 = 0x0800
)

// ntpOffset: seconds from 1900-01-01 to 1970-01-01 (RFC 5905).
const ntpOffset = 2208988800

func toNTP(t time.Time) uint32 { return uint32(t.Unix() + ntpOffset) }

func fromNTP(s uint32) time.Time {
	// Era 0 only (until 2036); times before 1970 are not produced by a DP.
	return time.Unix(int64(s)-ntpOffset, 0).UTC()
}

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func bbf(typ uint16, val []byte) *ie.IE { return ie.NewVendorSpecificIE(typ, enterpriseBBF, val) }

// raw returns the bytes of a marshalled IE (for vendor grouped IEs).
func raw(i *ie.IE) []byte {
	b, err := i.Marshal()
	if err != nil {
		panic("pfcpcp: marshal of a locally built IE: " + err.Error()) // our own IEs: a bug, not input
	}
	return b
}

func group(typ uint16, children ...*ie.IE) *ie.IE { return ie.NewGroupedIE(typ, children...) }

func nodeIDIE(a netip.Addr) *ie.IE {
	if a.Is4() {
		b := a.As4()
		return ie.New(ieNodeID, append([]byte{0}, b[:]...))
	}
	b := a.As16()
	return ie.New(ieNodeID, append([]byte{1}, b[:]...))
}

func fseidIE(seid uint64, a netip.Addr) *ie.IE {
	v := make([]byte, 0, 25)
	if a.Is4() {
		v = append(v, 0x02)
		v = binary.BigEndian.AppendUint64(v, seid)
		b := a.As4()
		return ie.New(ieFSEID, append(v, b[:]...))
	}
	v = append(v, 0x01)
	v = binary.BigEndian.AppendUint64(v, seid)
	b := a.As16()
	return ie.New(ieFSEID, append(v, b[:]...))
}

func rtsIE(t time.Time) *ie.IE { return ie.New(ieRecoveryTS, u32(toNTP(t))) }

func vlanIE(typ uint16, vid uint16) *ie.IE {
	// flags: VID only; VID bits 11-8 in bits 8-5 of the second octet.
	return ie.New(typ, []byte{0x04, byte(vid>>8) << 4, byte(vid)})
}

// rate5 encodes a UL/DL pair of 5-octet kbit/s values (MBR, GBR).
func rate5(typ uint16, ul, dl uint64) *ie.IE {
	v := make([]byte, 10)
	put40(v[0:5], ul)
	put40(v[5:10], dl)
	return ie.New(typ, v)
}

func put40(b []byte, v uint64) {
	if v > 0xffffffffff {
		v = 0xffffffffff
	}
	b[0] = byte(v >> 32)
	binary.BigEndian.PutUint32(b[1:], uint32(v))
}

// kbps converts bit/s to kbit/s, rounding up so that a small rate never
// turns into 0 (which means "the QoS profile's").
func kbps(bps uint64) uint64 {
	if bps == 0 {
		return 0
	}
	return (bps-1)/1000 + 1
}

func forwardingPolicyIE(name string) *ie.IE {
	return ie.New(ieForwardingPolicy, append([]byte{byte(len(name))}, name...))
}

func lcpConnIE(l *LCPConnectivity) *ie.IE {
	if l == nil {
		return bbf(ieBBFLCPConn, nil) // length 2: offload off
	}
	t := raw(bbf(ieBBFVerifTimers, []byte{byte(l.Interval >> 8), byte(l.Interval), l.Count}))
	m := raw(bbf(ieBBFLCPMagic, append(u32(l.TxMagic), u32(l.RxMagic)...)))
	return bbf(ieBBFLCPConn, append(t, m...))
}

func marshalMsg(typ uint8, withSEID bool, seid uint64, seq uint32, ies []*ie.IE) []byte {
	var m *message.Generic
	if withSEID {
		m = message.NewGeneric(typ, seid, seq, ies...)
	} else {
		m = message.NewGenericWithoutSEID(typ, seq, ies...)
	}
	b, err := m.Marshal()
	if err != nil {
		panic("pfcpcp: marshal of a locally built message: " + err.Error())
	}
	return b
}

// setSeq writes a 24-bit sequence number into an encoded message.
func setSeq(b []byte, seq uint32) {
	off := 4
	if b[0]&1 != 0 {
		off = 12
	}
	b[off] = byte(seq >> 16)
	b[off+1] = byte(seq >> 8)
	b[off+2] = byte(seq)
}

func (f *Function) encAssocSetup(seq uint32) []byte {
	return marshalMsg(msgAssocSetupReq, false, 0, seq, []*ie.IE{
		nodeIDIE(f.cfg.NodeID),
		rtsIE(f.cfg.RecoveryTime),
		ie.New(ieCPFeatures, []byte{0}),
	})
}

func (f *Function) encHeartbeat(typ uint8, seq uint32) []byte {
	return marshalMsg(typ, false, 0, seq, []*ie.IE{rtsIE(f.cfg.RecoveryTime)})
}

// encEstablish builds the subscriber's Session Establishment Request of
// docs/dp/pfcp.md section 6 (with its dual-stack PDRs when s.IPv6 is set).
func (f *Function) encEstablish(seq uint32, s *Session) []byte {
	rates := sessionRates(s)
	urr := f.sessionPeriod(s) > 0
	v4 := s.IPv4.IsValid()
	v6 := s.IPv6 != nil
	urrs := func(family uint32) []*ie.IE {
		if !urr {
			return nil
		}
		if !v6 {
			return []*ie.IE{ie.New(ieURRID, u32(URRTotal))}
		}
		return []*ie.IE{ie.New(ieURRID, u32(URRTotal)), ie.New(ieURRID, u32(family))}
	}
	ies := []*ie.IE{nodeIDIE(f.cfg.NodeID), fseidIE(s.CPSEID, f.cfg.NodeID)}
	if v4 {
		ies = append(ies, f.pdrs4(s, urrs(URRIPv4), rates)...)
	}
	if v6 {
		ies = append(ies, f.pdrs6(s, urrs(URRIPv6), rates)...)
	}
	ies = append(ies,
		group(ieCreateFAR,
			ie.New(ieFARID, u32(1)),
			ie.New(ieApplyAction, []byte{0x02}),
			group(ieForwardingParams, ie.New(ieDestInterface, []byte{1})),
		),
		downFAR(s),
	)
	if urr {
		ies = append(ies, createURR(URRTotal, f.sessionPeriod(s)))
		if v6 && v4 {
			ies = append(ies, createURR(URRIPv4, f.sessionPeriod(s)))
		}
		if v6 {
			ies = append(ies, createURR(URRIPv6, f.sessionPeriod(s)))
		}
	}
	if rates {
		ies = append(ies, group(ieCreateQER,
			ie.New(ieQERID, u32(1)),
			ie.New(ieGateStatus, []byte{0}),
			rate5(ieMBR, kbps(s.UpMBR), kbps(s.DownMBR)),
			rate5(ieGBR, kbps(s.UpGBR), kbps(s.DownGBR)),
		))
	}
	if s.MTU != 0 {
		ies = append(ies, bbf(ieBBFMTU, u16(s.MTU)))
	}
	if s.LCP != nil {
		ies = append(ies, lcpConnIE(s.LCP))
	}
	if s.RA != nil {
		ies = append(ies, raOffloadIE(s.RA))
	}
	if s.ARPPing != nil {
		ies = append(ies, arpPingIE(s.ARPPing))
	}
	return marshalMsg(msgSessEstReq, true, 0, seq, ies)
}

func sessionRates(s *Session) bool {
	return s.UpMBR != 0 || s.UpGBR != 0 || s.DownMBR != 0 || s.DownGBR != 0
}

func (f *Function) sessionPeriod(s *Session) time.Duration {
	if s.URRPeriod > 0 {
		return s.URRPeriod
	}
	return f.cfg.URRPeriod
}

func createURR(id uint32, period time.Duration) *ie.IE {
	return group(ieCreateURR,
		ie.New(ieURRID, u32(id)),
		ie.New(ieMeasMethod, []byte{0x03}), // DURAT | VOLUM
		ie.New(ieReportingTrig, []byte{0x01, 0x00}),
		ie.New(ieMeasPeriod, u32(periodSeconds(period))),
	)
}

// pdiUp is the upstream PDI of the session's line for a PPP protocol; for
// an IPoE session, the one of the family (0x0021: Ethertype 0x0800 and the
// UE IP as source; 0x0057: Ethertype 0x86DD, no UE IP: the anti-spoof
// prefixes are the downstream IPv6 PDRs').
func pdiUp(s *Session, pppProto uint16, extra ...*ie.IE) *ie.IE {
	mac := append([]byte{0x01}, s.MAC[:]...)
	et := uint16(0x8864)
	if s.IPoE {
		et = 0x0800
		if pppProto == 0x0057 {
			et = 0x86DD
		}
	}
	eth := group(ieEthPacketFilter,
		ie.New(ieMACAddress, mac),
		ie.New(ieEthertype, u16(et)),
		vlanIE(ieCTAG, s.CTag),
		vlanIE(ieSTAG, s.STag),
	)
	pdi := []*ie.IE{ie.New(ieSourceInterface, []byte{0}), eth}
	if s.LogicalPort != "" {
		pdi = append(pdi, bbf(ieBBFLogicalPort, []byte(s.LogicalPort)))
	}
	if s.IPoE {
		if pppProto != 0x0057 {
			ip := s.IPv4.As4()
			pdi = append(pdi, ie.New(ieUEIPAddress, append([]byte{0x02}, ip[:]...))) // V4, S/D 0: source
		}
		return group(iePDI, pdi...)
	}
	pdi = append(pdi,
		bbf(ieBBFPPPoESID, u16(s.PPPoESessionID)),
		bbf(ieBBFPPPProtocol, []byte{0x01, byte(pppProto >> 8), byte(pppProto)}),
	)
	pdi = append(pdi, extra...)
	return group(iePDI, pdi...)
}

// ohr is the BBF Outer Header Removal of the session's upstream PDRs: 1
// (Ethernet) makes it IPoE, 3 PPPoE/PPP.
func ohr(s *Session) byte {
	if s.IPoE {
		return 1
	}
	return 3
}

// pdrs4 are the IPv4 PDRs 1 (upstream) and 2 (downstream).
func (f *Function) pdrs4(s *Session, urrs []*ie.IE, rates bool) []*ie.IE {
	up := []*ie.IE{
		ie.New(iePDRID, u16(1)),
		ie.New(iePrecedence, u32(100)),
		pdiUp(s, 0x0021),
		bbf(ieBBFOHR, []byte{ohr(s)}),
		ie.New(ieFARID, u32(1)),
	}
	ip := s.IPv4.As4()
	down := []*ie.IE{
		ie.New(iePDRID, u16(2)),
		ie.New(iePrecedence, u32(100)),
		group(iePDI,
			ie.New(ieSourceInterface, []byte{1}),
			ie.New(ieUEIPAddress, append([]byte{0x06}, ip[:]...)),
		),
		ie.New(ieFARID, u32(2)),
	}
	up, down = append(up, urrs...), append(down, urrs...)
	if rates {
		up = append(up, ie.New(ieQERID, u32(1)))
		down = append(down, ie.New(ieQERID, u32(1)))
	}
	return []*ie.IE{group(ieCreatePDR, up...), group(ieCreatePDR, down...)}
}

// ueIP6 is a UE IP Address with an IPv6 prefix (V6 | IP6PL, and S/D for a
// destination).
func ueIP6(p netip.Prefix, dst bool) *ie.IE {
	flags := byte(0x41)
	if dst {
		flags |= 0x04
	}
	a := p.Addr().As16()
	v := append([]byte{flags}, a[:]...)
	return ie.New(ieUEIPAddress, append(v, byte(p.Bits())))
}

// pdrs6 are the IPv6 PDRs 3 (upstream), 4 (the /64) and 5 (the delegated
// prefix).
func (f *Function) pdrs6(s *Session, urrs []*ie.IE, rates bool) []*ie.IE {
	r := s.IPv6
	up := []*ie.IE{
		ie.New(iePDRID, u16(3)),
		ie.New(iePrecedence, u32(100)),
		pdiUp(s, 0x0057),
		bbf(ieBBFOHR, []byte{ohr(s)}),
		ie.New(ieFARID, u32(1)),
	}
	up = append(up, urrs...)
	if rates {
		up = append(up, ie.New(ieQERID, u32(1)))
	}
	out := []*ie.IE{group(ieCreatePDR, up...)}
	for i, p := range []netip.Prefix{r.WAN, r.PD} {
		if !p.IsValid() {
			continue
		}
		down := []*ie.IE{
			ie.New(iePDRID, u16(uint16(4+i))),
			ie.New(iePrecedence, u32(100)),
			group(iePDI, ie.New(ieSourceInterface, []byte{1}), ueIP6(p, true)),
			ie.New(ieFARID, u32(2)),
		}
		down = append(down, urrs...)
		if rates {
			down = append(down, ie.New(ieQERID, u32(1)))
		}
		out = append(out, group(ieCreatePDR, down...))
	}
	return out
}

func downFAR(s *Session) *ie.IE {
	// Traffic-Endpoint, tunnel id 0, the PPPoE session id (0 for IPoE: QinQ
	// and Ethernet to the client MAC, no PPPoE)
	fwdDown := []*ie.IE{
		ie.New(ieDestInterface, []byte{0}),
		bbf(ieBBFOHC, []byte{0x02, 0x00, 0, 0, byte(s.PPPoESessionID >> 8), byte(s.PPPoESessionID)}),
	}
	if s.QosProfile != "" {
		fwdDown = append(fwdDown, forwardingPolicyIE(s.QosProfile))
	}
	return group(ieCreateFAR,
		ie.New(ieFARID, u32(2)),
		ie.New(ieApplyAction, []byte{0x02}),
		group(ieForwardingParams, fwdDown...),
	)
}

// arpPingIE is bngpod's IPoE ARP ping IE (docs/dp/pfcp.md): interval (2
// octets), count (1 octet).
func arpPingIE(a *ARPPing) *ie.IE {
	return ie.NewVendorSpecificIE(ieBngpodARPPing, enterpriseBngpod, []byte{byte(a.Interval >> 8), byte(a.Interval), a.Count})
}

// raOffloadIE is bngpod's RA offload IE (docs/dp/pfcp.md); nil: offload off.
func raOffloadIE(r *RAOffload) *ie.IE {
	if r == nil {
		return ie.NewVendorSpecificIE(ieBngpodRAOffload, enterpriseBngpod, nil)
	}
	v := make([]byte, 32, 32+16*len(r.DNS))
	binary.BigEndian.PutUint16(v[0:], r.Interval)
	binary.BigEndian.PutUint16(v[2:], r.RouterLifetime)
	v[4] = r.Flags
	binary.BigEndian.PutUint16(v[5:], r.MTU)
	a := r.Prefix.Addr().As16()
	copy(v[7:15], a[:8])
	binary.BigEndian.PutUint32(v[15:], r.Valid)
	binary.BigEndian.PutUint32(v[19:], r.Preferred)
	binary.BigEndian.PutUint64(v[23:], r.IID)
	n := min(len(r.DNS), 2)
	v[31] = byte(n)
	for _, d := range r.DNS[:n] {
		x := d.As16()
		v = append(v, x[:]...)
	}
	return ie.NewVendorSpecificIE(ieBngpodRAOffload, enterpriseBngpod, v)
}

func periodSeconds(d time.Duration) uint32 {
	s := (d + time.Second - 1) / time.Second
	if s < 1 {
		s = 1
	}
	if s > 0xffffffff {
		s = 0xffffffff
	}
	return uint32(s)
}

// Precedences of the default session's PDRs: the PPP control class before
// the catch-all unknown-session class; the dhcp class (IPoE) only to a DP
// that announced IPoE.
var defaultClasses = []defaultClass{
	{0x8863, nil, "", 10},
	{0x8864, []byte{0x04}, "", 20},
	{0x8864, nil, "", 65000},
}

type defaultClass struct {
	ethertype uint16
	ppp       []byte
	sdf       string
	prec      uint32
}

// dhcpClass is the IPoE default-session class (the contract of issue 19:
// the only flow description the DP accepts); dhcp6Class its IPv6 twin (dual
// stack over IPoE: DHCPv6 client to server and, by the DP, RS).
var (
	dhcpClass  = defaultClass{0x0800, nil, DHCPFlowDescription, 30}
	dhcp6Class = defaultClass{0x86DD, nil, DHCP6FlowDescription, 31}
)

// DHCPFlowDescription is the dhcp class's SDF filter; DHCP6FlowDescription
// the one of its IPv6 PDR.
const (
	DHCPFlowDescription  = "permit out 17 from any 68 to any 67"
	DHCP6FlowDescription = "permit out 17 from any 546 to any 547"
)

// sdfFilterIE is an SDF Filter with a flow description only (flags FD).
func sdfFilterIE(fd string) *ie.IE {
	v := []byte{0x01, 0x00}
	v = binary.BigEndian.AppendUint16(v, uint16(len(fd)))
	return ie.New(ieSDFFilter, append(v, fd...))
}

// encDefault builds the default session of docs/dp/pfcp.md section 7; with
// ipoe, the dhcp class too (PDR 4), and with ipoe6 its IPv6 PDR (PDR 5).
func (f *Function) encDefault(seq uint32, cpSEID uint64, ipoe, ipoe6 bool) []byte {
	ies := []*ie.IE{nodeIDIE(f.cfg.NodeID), fseidIE(cpSEID, f.cfg.NodeID)}
	classes := defaultClasses
	if ipoe {
		classes = append(classes[:len(classes):len(classes)], dhcpClass)
		if ipoe6 {
			classes = append(classes, dhcp6Class)
		}
	}
	for i, c := range classes {
		pdi := []*ie.IE{
			ie.New(ieSourceInterface, []byte{0}),
			group(ieEthPacketFilter, ie.New(ieEthertype, u16(c.ethertype))),
		}
		if c.ppp != nil {
			pdi = append(pdi, bbf(ieBBFPPPProtocol, c.ppp))
		}
		if c.sdf != "" {
			pdi = append(pdi, sdfFilterIE(c.sdf))
		}
		ies = append(ies, group(ieCreatePDR,
			ie.New(iePDRID, u16(uint16(i+1))),
			ie.New(iePrecedence, u32(c.prec)),
			group(iePDI, pdi...),
			ie.New(ieFARID, u32(1)),
		))
	}
	r := f.cfg.Redirect.Addr().As4()
	ohc := append([]byte{0x04, 0x00}, r[:]...)
	ohc = binary.BigEndian.AppendUint16(ohc, f.cfg.Redirect.Port())
	ies = append(ies, group(ieCreateFAR,
		ie.New(ieFARID, u32(1)),
		ie.New(ieApplyAction, []byte{0x02}),
		group(ieForwardingParams,
			ie.New(ieDestInterface, []byte{3}),
			ie.New(ieOHC, ohc),
		),
	))
	return marshalMsg(msgSessEstReq, true, 0, seq, ies)
}

// encModify builds a Session Modification Request. createQER: the session
// has no QER yet, so the rates come as Create QER plus Update PDRs.
func (f *Function) encModify(seq uint32, upSEID uint64, m *Mod, createQER bool) []byte {
	var ies []*ie.IE
	rates := m.UpMBR != nil || m.UpGBR != nil || m.DownMBR != nil || m.DownGBR != nil
	if rates && createQER {
		for _, id := range m.pdrIDs() {
			ies = append(ies, group(ieUpdatePDR, ie.New(iePDRID, u16(id)), ie.New(ieQERID, u32(1))))
		}
	}
	if a := m.AddIPv6; a != nil && a.IPv6 != nil {
		period := f.sessionPeriod(a)
		var urrs []*ie.IE
		if period > 0 {
			urrs = []*ie.IE{ie.New(ieURRID, u32(URRTotal)), ie.New(ieURRID, u32(URRIPv6))}
			if a.IPv4.IsValid() {
				for _, id := range []uint16{1, 2} {
					ies = append(ies, group(ieUpdatePDR, ie.New(iePDRID, u16(id)),
						ie.New(ieURRID, u32(URRTotal)), ie.New(ieURRID, u32(URRIPv4))))
				}
			}
		}
		ies = append(ies, f.pdrs6(a, urrs, sessionRates(a))...)
		if period > 0 {
			if a.IPv4.IsValid() {
				ies = append(ies, createURR(URRIPv4, period))
			}
			ies = append(ies, createURR(URRIPv6, period))
		}
	}
	if a := m.AddIPv4; a != nil && a.IPv4.IsValid() {
		var urrs []*ie.IE
		period := f.sessionPeriod(a)
		if period > 0 {
			urrs = []*ie.IE{ie.New(ieURRID, u32(URRTotal)), ie.New(ieURRID, u32(URRIPv4))}
		}
		ies = append(ies, f.pdrs4(a, urrs, sessionRates(a))...)
		if period > 0 {
			ies = append(ies, createURR(URRIPv4, period))
		}
	}
	if r := m.RemoveIPv4; r != nil {
		ies = append(ies, removePDR(1), removePDR(2))
		if f.sessionPeriod(r) > 0 {
			ies = append(ies, removeURR(URRIPv4))
		}
	}
	if r := m.RemoveIPv6; r != nil {
		ies = append(ies, removePDR(3), removePDR(4))
		if r.IPv6 != nil && r.IPv6.PD.IsValid() {
			ies = append(ies, removePDR(5))
		}
		if f.sessionPeriod(r) > 0 {
			ies = append(ies, removeURR(URRIPv6))
			if r.IPv4.IsValid() {
				// back to the IPv4-only session: PDRs 1, 2 name URR 1 only
				ies = append(ies, removeURR(URRIPv4))
				for _, id := range []uint16{1, 2} {
					ies = append(ies, group(ieUpdatePDR, ie.New(iePDRID, u16(id)), ie.New(ieURRID, u32(URRTotal))))
				}
			}
		}
	}
	if m.QosProfile != nil {
		ies = append(ies, group(ieUpdateFAR,
			ie.New(ieFARID, u32(2)),
			group(ieUpdateFwdParams, forwardingPolicyIE(*m.QosProfile)),
		))
	}
	if rates {
		v := func(p *uint64) uint64 {
			if p == nil {
				return 0
			}
			return kbps(*p)
		}
		if createQER {
			ies = append(ies, group(ieCreateQER,
				ie.New(ieQERID, u32(1)),
				ie.New(ieGateStatus, []byte{0}),
				rate5(ieMBR, v(m.UpMBR), v(m.DownMBR)),
				rate5(ieGBR, v(m.UpGBR), v(m.DownGBR)),
			))
		} else {
			ies = append(ies, group(ieUpdateQER,
				ie.New(ieQERID, u32(1)),
				rate5(ieMBR, v(m.UpMBR), v(m.DownMBR)),
				rate5(ieGBR, v(m.UpGBR), v(m.DownGBR)),
			))
		}
	}
	if m.QueryUsage {
		ies = append(ies, ie.New(ieSMReqFlags, []byte{smReqFlagQAURR}))
	}
	if m.LCPOff {
		ies = append(ies, lcpConnIE(nil))
	} else if m.LCP != nil {
		ies = append(ies, lcpConnIE(m.LCP))
	}
	if m.RAOff || m.RemoveIPv6 != nil {
		ies = append(ies, raOffloadIE(nil))
	} else if m.RA != nil {
		ies = append(ies, raOffloadIE(m.RA))
	}
	return marshalMsg(msgSessModReq, true, upSEID, seq, ies)
}

// pdrIDs are the session's PDRs as a Mod describes them.
func (m *Mod) pdrIDs() []uint16 {
	var ids []uint16
	if !m.NoIPv4 {
		ids = append(ids, 1, 2)
	}
	if m.IPv6PDRs {
		ids = append(ids, 3, 4)
		if m.HasPD {
			ids = append(ids, 5)
		}
	}
	return ids
}

func removePDR(id uint16) *ie.IE { return group(ieRemovePDR, ie.New(iePDRID, u16(id))) }

func removeURR(id uint32) *ie.IE { return group(ieRemoveURR, ie.New(ieURRID, u32(id))) }

func encDelete(seq uint32, upSEID uint64) []byte {
	return marshalMsg(msgSessDelReq, true, upSEID, seq, nil)
}

func encReportRsp(seq uint32, upSEID uint64, cause uint8) []byte {
	return marshalMsg(msgSessReportRsp, true, upSEID, seq, []*ie.IE{ie.New(ieCause, []byte{cause})})
}
