package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RawSocket is the Transport of a real access port: one AF_PACKET socket
// bound to the interface, with a classic BPF filter that lets through only
// frames to our MACs (02:5b:..), recvmmsg/sendmmsg batches, and the outer
// VLAN tag put back from PACKET_AUXDATA when the interface strips it
// (rx VLAN offload, on by default on veths).
type RawSocket struct {
	fd      int
	dropped atomic.Uint64 // PACKET_STATISTICS drops read so far (reading resets the kernel's)
	rxHdrs  []mmsghdr
	rxIov   []unix.Iovec
	rxCtrl  []byte
	rxNames []unix.RawSockaddrLinklayer
	txHdrs  []mmsghdr
	txIov   []unix.Iovec
}

// mmsghdr is struct mmsghdr of <sys/socket.h> (x/sys/unix does not export it).
type mmsghdr struct {
	Hdr unix.Msghdr
	Len uint32
	_   [4]byte
}

const ctrlLen = 64 // one cmsg with struct tpacket_auxdata

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// OpenRawSocket opens the socket on iface.
func OpenRawSocket(iface string) (*RawSocket, error) { return openRawSocket(iface, true) }

// OpenRawSocketIPoE is OpenRawSocket that also takes broadcast frames (DHCP
// replies with the broadcast flag, NAKs): --ipoe.
func OpenRawSocketIPoE(iface string) (*RawSocket, error) {
	rawBroadcast = true
	return openRawSocket(iface, true)
}

// rawBroadcast: the filter also lets frames to ff:ff:.. through (IPoE).
var rawBroadcast bool

// openRawSocket: ourMACsOnly false lets every frame through (the tests'
// access concentrator on the other end of a veth).
func openRawSocket(iface string, ourMACsOnly bool) (*RawSocket, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("interface %s: %w", iface, err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return nil, fmt.Errorf("AF_PACKET socket (needs CAP_NET_RAW): %w", err)
	}
	s := &RawSocket{fd: fd}
	fail := func(what string, err error) (*RawSocket, error) {
		unix.Close(fd)
		return nil, fmt.Errorf("%s on %s: %w", what, iface, err)
	}
	// dst MAC 02:5b:xx:xx:xx:xx only: ldh [0]; jeq #0x025b; ret all; ret 0.
	filter := []unix.SockFilter{
		{Code: 0x28, K: 0},
		{Code: 0x15, Jt: 0, Jf: 1, K: 0x025b},
		{Code: 0x06, K: 0x40000},
		{Code: 0x06, K: 0},
	}
	if rawBroadcast {
		// ldh [0]; jeq #0x025b, all; jeq #0x0249, all; jeq #0xffff, all, none
		// (02:49: the IPoE MACs of users.json)
		filter = []unix.SockFilter{
			{Code: 0x28, K: 0},
			{Code: 0x15, Jt: 2, Jf: 0, K: 0x025b},
			{Code: 0x15, Jt: 1, Jf: 0, K: 0x0249},
			{Code: 0x15, Jt: 0, Jf: 1, K: 0xffff},
			{Code: 0x06, K: 0x40000},
			{Code: 0x06, K: 0},
		}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if ourMACsOnly {
		if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &prog); err != nil {
			return fail("BPF filter", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index}); err != nil {
		return fail("bind", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_AUXDATA, 1); err != nil {
		return fail("PACKET_AUXDATA", err)
	}
	// Our own frames are not to be read back; kernels before 4.20 lack the
	// option and the receive path drops PACKET_OUTGOING itself.
	_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_IGNORE_OUTGOING, 1)
	for _, o := range [][2]int{{unix.SO_RCVBUFFORCE, unix.SO_RCVBUF}, {unix.SO_SNDBUFFORCE, unix.SO_SNDBUF}} {
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, o[0], 8<<20) != nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, o[1], 8<<20)
		}
	}
	tv := unix.Timeval{Usec: 100000}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fail("SO_RCVTIMEO", err)
	}
	s.rxHdrs = make([]mmsghdr, batchLen)
	s.rxIov = make([]unix.Iovec, batchLen)
	s.rxCtrl = make([]byte, batchLen*ctrlLen)
	s.rxNames = make([]unix.RawSockaddrLinklayer, batchLen)
	s.txHdrs = make([]mmsghdr, batchLen)
	s.txIov = make([]unix.Iovec, batchLen)
	return s, nil
}

// RxDropped is how many frames the kernel dropped for want of room in the
// socket's receive buffer since it was opened (PACKET_STATISTICS).
func (s *RawSocket) RxDropped() uint64 {
	if st, err := unix.GetsockoptTpacketStats(s.fd, unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
		s.dropped.Add(uint64(st.Drops))
	}
	return s.dropped.Load()
}

// Recv reads up to a batch of frames (recvmmsg, MSG_WAITFORONE).
func (s *RawSocket) Recv(b *RxBatch) error {
	b.N = 0
	n := len(b.Bufs)
	if n > len(s.rxHdrs) {
		n = len(s.rxHdrs)
	}
	for i := 0; i < n; i++ {
		buf := b.Bufs[i]
		s.rxIov[i].Base = &buf[headroom]
		s.rxIov[i].SetLen(len(buf) - headroom)
		h := &s.rxHdrs[i].Hdr
		h.Name = (*byte)(unsafe.Pointer(&s.rxNames[i]))
		h.Namelen = unix.SizeofSockaddrLinklayer
		h.Iov = &s.rxIov[i]
		h.Iovlen = 1
		h.Control = &s.rxCtrl[i*ctrlLen]
		h.SetControllen(ctrlLen)
		s.rxHdrs[i].Len = 0
	}
	r, _, e := unix.Syscall6(unix.SYS_RECVMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.rxHdrs[0])),
		uintptr(n), unix.MSG_WAITFORONE, 0, 0)
	if e != 0 {
		if e == unix.EAGAIN || e == unix.EINTR {
			return nil
		}
		return fmt.Errorf("recvmmsg: %w", e)
	}
	for i := 0; i < int(r); i++ {
		if s.rxNames[i].Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		ln := int(s.rxHdrs[i].Len)
		if ln > len(b.Bufs[i])-headroom {
			continue // truncated
		}
		buf := b.Bufs[i]
		f := buf[headroom : headroom+ln]
		if tci, tpid, ok := auxVLAN(s.rxCtrl[i*ctrlLen : i*ctrlLen+int(s.rxHdrs[i].Hdr.Controllen)]); ok && ln >= 12 {
			// put the stripped outer tag back between the MACs and the rest
			copy(buf[headroom-4:], buf[headroom:headroom+12])
			binary.BigEndian.PutUint16(buf[headroom+8:], tpid)
			binary.BigEndian.PutUint16(buf[headroom+10:], tci)
			f = buf[headroom-4 : headroom+ln]
		}
		b.Frames[b.N] = f
		b.N++
	}
	return nil
}

// auxVLAN finds a valid VLAN tag in the PACKET_AUXDATA control message.
func auxVLAN(ctrl []byte) (tci, tpid uint16, ok bool) {
	const hdr = unix.SizeofCmsghdr
	for len(ctrl) >= hdr {
		c := (*unix.Cmsghdr)(unsafe.Pointer(&ctrl[0]))
		l := int(c.Len)
		if l < hdr || l > len(ctrl) {
			return 0, 0, false
		}
		if c.Level == unix.SOL_PACKET && c.Type == unix.PACKET_AUXDATA && l >= hdr+int(unsafe.Sizeof(unix.TpacketAuxdata{})) {
			a := (*unix.TpacketAuxdata)(unsafe.Pointer(&ctrl[hdr]))
			if a.Status&unix.TP_STATUS_VLAN_VALID == 0 && a.Vlan_tci == 0 {
				return 0, 0, false
			}
			tpid = 0x8100
			if a.Status&unix.TP_STATUS_VLAN_TPID_VALID != 0 && a.Vlan_tpid != 0 {
				tpid = a.Vlan_tpid
			}
			return a.Vlan_tci, tpid, true
		}
		al := (l + 7) &^ 7
		if al > len(ctrl) {
			break
		}
		ctrl = ctrl[al:]
	}
	return 0, 0, false
}

// Send writes the frames with sendmmsg, batchLen at a time.
func (s *RawSocket) Send(frames [][]byte) (int, error) {
	sent := 0
	for len(frames) > 0 {
		n := len(frames)
		if n > len(s.txHdrs) {
			n = len(s.txHdrs)
		}
		for i := 0; i < n; i++ {
			s.txIov[i].Base = &frames[i][0]
			s.txIov[i].SetLen(len(frames[i]))
			s.txHdrs[i] = mmsghdr{}
			s.txHdrs[i].Hdr.Iov = &s.txIov[i]
			s.txHdrs[i].Hdr.Iovlen = 1
		}
		r, _, e := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&s.txHdrs[0])), uintptr(n), 0, 0, 0)
		if e != 0 {
			if e == unix.EINTR {
				continue
			}
			if e == unix.EAGAIN || e == unix.ENOBUFS {
				return sent, nil // the caller counts the rest as dropped
			}
			return sent, fmt.Errorf("sendmmsg: %w", e)
		}
		if r == 0 {
			return sent, nil
		}
		sent += int(r)
		frames = frames[r:]
	}
	return sent, nil
}

func (s *RawSocket) Close() error { return unix.Close(s.fd) }
