package core

import (
	"errors"
	"net"

	"github.com/bngpod/bngpod/accel-ppp-glue/internal/config"
	"github.com/bngpod/bngpod/accel-ppp-glue/internal/vxlan"
)

// The control-frame redirect as the CP's policy sees it: which datagrams are
// taken (internal/vxlan carries them), and the replies of a shard, sent
// together when it has worked off what it received.

// readVXLAN receives the redirected control frames until the endpoint closes.
func (d *Daemon) readVXLAN() {
	d.vx.Serve(d.vxlanIn, func(err error) {
		d.blog.Warn("vxlan_read", "VXLAN read failed", "err", err)
	})
}

// vxlanIn takes a datagram only from an instance's control address, and
// only with that instance's own id as VNI, and hands its frame to the shard
// of the client MAC.
func (d *Daemon) vxlanIn(ua *net.UDPAddr, buf []byte) {
	if ua == nil {
		return
	}
	from := ua.AddrPort()
	inst, ok := d.instByAddr[from.Addr().Unmap()]
	if !ok {
		d.m.drops.WithLabelValues("vxlan_not_allowed").Inc()
		d.blog.Warn("vxlan_not_allowed", "VXLAN datagram from an address that is no DP instance", "from", from.String())
		return
	}
	vni, inner, err := vxlan.Decode(buf)
	if err != nil {
		d.m.drops.WithLabelValues("vxlan_malformed").Inc()
		d.blog.Warn("vxlan_malformed", "malformed VXLAN datagram", "from", from.String(), "len", len(buf))
		return
	}
	if vni != inst.ID {
		d.m.drops.WithLabelValues("vxlan_wrong_vni").Inc()
		d.blog.Warn("vxlan_wrong_vni", "VXLAN VNI is not the sending instance's id", "instance", inst.Name, "vni", vni)
		return
	}
	frame := make([]byte, len(inner)) // the read buffer is reused
	copy(frame, inner)
	var src [6]byte
	copy(src[:], frame[6:12]) // Decode: the Ethernet header is there
	sh := d.shardFor(src)
	select {
	case sh.in <- inFrame{inst: inst, data: frame}:
	default:
		d.m.drops.WithLabelValues("cp_overload").Inc()
		d.blog.Warn("cp_overload", "control frame queue full, frame dropped", "shard", sh.id)
	}
}

// emit queues an access frame to a DP instance inside VXLAN (VNI = its id);
// it leaves with the shard's batch.
func (sh *shard) emit(inst *config.Instance, frame []byte) {
	if sh.batch.Full() {
		sh.flushOut()
	}
	sh.batch.Add(sh.d.vxAddr[inst.ID], inst.ID, frame)
}

// flushOut sends the shard's batch (one sendmmsg per 64 frames).
func (sh *shard) flushOut() {
	unsent, err := sh.batch.Flush()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		sh.d.m.drops.WithLabelValues("vxlan_send_error").Add(float64(unsent))
		sh.d.blog.Warn("vxlan_send", "VXLAN send failed", "err", err)
	}
}
