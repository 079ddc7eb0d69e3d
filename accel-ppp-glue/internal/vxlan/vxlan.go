// Package vxlan is the CP's end of the control-frame redirect
// (docs/dp/control-frames.md): whole access frames, tags kept, inside VXLAN
// (RFC 7348) between the DP instances and the CP, the VNI naming the
// instance. Datagrams are read and sent in batches (recvmmsg, sendmmsg): one
// system call per batch, not per frame. Which peers and VNIs are accepted is
// the caller's policy.
package vxlan

import (
	"errors"
	"net"
	"net/netip"

	"golang.org/x/net/ipv4"
)

// HeaderLen is the VXLAN header: flags, reserved, VNI, reserved.
const HeaderLen = 8

// flagI says the VNI is valid (RFC 7348 5); every datagram must have it.
const flagI = 0x08

// minFrame is the smallest inner frame: an Ethernet header.
const minFrame = 14

// BatchSize is how many datagrams one system call reads or sends.
const BatchSize = 64

// maxDatagram is the largest datagram read: a jumbo frame and the header.
const maxDatagram = 9216 + HeaderLen

// ErrMalformed is a datagram without the I flag or shorter than a VXLAN
// header and an Ethernet header.
var ErrMalformed = errors.New("vxlan: malformed datagram")

// Decode checks a VXLAN datagram and returns its VNI and the inner frame,
// which aliases dgram.
func Decode(dgram []byte) (vni uint32, frame []byte, err error) {
	if len(dgram) < HeaderLen+minFrame || dgram[0]&flagI == 0 {
		return 0, nil, ErrMalformed
	}
	vni = uint32(dgram[4])<<16 | uint32(dgram[5])<<8 | uint32(dgram[6])
	return vni, dgram[HeaderLen:], nil
}

// Append appends a VXLAN datagram carrying frame with the VNI (its low 24
// bits) to dst.
func Append(dst []byte, vni uint32, frame []byte) []byte {
	dst = append(dst, flagI, 0, 0, 0, byte(vni>>16), byte(vni>>8), byte(vni), 0)
	return append(dst, frame...)
}

// Conn is a UDP socket that carries VXLAN.
type Conn struct {
	uc *net.UDPConn
	pc *ipv4.PacketConn // batched I/O on uc
}

// Listen opens the VXLAN endpoint at addr (IPv4), with socket buffers large
// enough for a burst of thousands of control frames.
func Listen(addr netip.AddrPort) (*Conn, error) {
	uc, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return nil, err
	}
	_ = uc.SetReadBuffer(8 << 20)
	_ = uc.SetWriteBuffer(8 << 20)
	return &Conn{uc: uc, pc: ipv4.NewPacketConn(uc)}, nil
}

// LocalAddr is the endpoint's address.
func (c *Conn) LocalAddr() netip.AddrPort { return c.uc.LocalAddr().(*net.UDPAddr).AddrPort() }

// Close closes the socket: Serve returns, Flush fails.
func (c *Conn) Close() error { return c.uc.Close() }

// Serve reads datagrams in batches until the socket is closed and calls fn
// for each, in order; dgram is only valid during the call. Read errors other
// than the close go to onErr, and reading goes on.
func (c *Conn) Serve(fn func(from *net.UDPAddr, dgram []byte), onErr func(error)) {
	msgs := make([]ipv4.Message, BatchSize)
	for i := range msgs {
		msgs[i].Buffers = [][]byte{make([]byte, maxDatagram)}
	}
	for {
		n, err := c.pc.ReadBatch(msgs, 0)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			onErr(err)
			continue
		}
		for i := 0; i < n; i++ {
			ua, _ := msgs[i].Addr.(*net.UDPAddr)
			fn(ua, msgs[i].Buffers[0][:msgs[i].N])
		}
	}
}

// Batch collects outgoing datagrams of one goroutine, sent together by
// Flush: their buffers are allocated once and reused.
type Batch struct {
	c    *Conn
	msgs []ipv4.Message
	bufs [][]byte
	n    int
}

// NewBatch returns an empty batch of up to BatchSize datagrams.
func (c *Conn) NewBatch() *Batch {
	b := &Batch{c: c, msgs: make([]ipv4.Message, BatchSize), bufs: make([][]byte, BatchSize)}
	for i := range b.bufs {
		b.bufs[i] = make([]byte, 0, 2048)
		b.msgs[i].Buffers = make([][]byte, 1)
	}
	return b
}

// Len is the number of datagrams waiting.
func (b *Batch) Len() int { return b.n }

// Full reports whether Add needs a Flush first.
func (b *Batch) Full() bool { return b.n == BatchSize }

// Add queues frame for the VTEP at to with the VNI; the batch must not be
// full. The frame is copied.
func (b *Batch) Add(to *net.UDPAddr, vni uint32, frame []byte) {
	buf := Append(b.bufs[b.n][:0], vni, frame)
	b.bufs[b.n] = buf
	b.msgs[b.n].Buffers[0] = buf
	b.msgs[b.n].Addr = to
	b.n++
}

// Flush sends what is waiting and empties the batch. It returns how many
// datagrams could not be sent, and the error that stopped it (net.ErrClosed
// after Close).
func (b *Batch) Flush() (unsent int, err error) {
	off := 0
	for off < b.n {
		k, err := b.c.pc.WriteBatch(b.msgs[off:b.n], 0)
		if err != nil {
			unsent = b.n - off
			b.n = 0
			return unsent, err
		}
		off += k
	}
	b.n = 0
	return 0, nil
}
