package main

import (
	"errors"
	"sync"
	"time"
)

// Transport carries whole Ethernet frames between the emulator and the access
// port. The raw AF_PACKET socket is the real one (rawsock_linux.go); the tests
// use a Pipe, so the client state machine runs without root.
type Transport interface {
	// Recv fills b with at least one frame, or returns with b.N == 0 after a
	// short wait (so that the caller can notice a stop), or an error.
	Recv(b *RxBatch) error
	// Send sends the frames, in order. Frames it could not send are counted
	// by the caller from the returned number.
	Send(frames [][]byte) (int, error)
	Close() error
}

// RxDropCounter is a Transport that knows how many frames it lost before the
// emulator read them (a full socket buffer): so that a loss the bench sees can
// be told apart from a loss in the pod.
type RxDropCounter interface {
	RxDropped() uint64
}

// ErrClosed is returned by a closed Transport.
var ErrClosed = errors.New("transport closed")

// Frame sizes: the largest access frame we expect (mini-jumbo with two tags)
// and the headroom the raw socket needs to put back a VLAN tag the kernel
// took out (rx VLAN offload).
const (
	frameCap = 2048
	headroom = 8
	batchLen = 64
)

// RxBatch is a reusable set of receive buffers: Frames[:N] alias Bufs.
type RxBatch struct {
	Bufs   [][]byte
	Frames [][]byte
	N      int
}

// NewRxBatch allocates a batch of batchLen buffers.
func NewRxBatch() *RxBatch {
	b := &RxBatch{Bufs: make([][]byte, batchLen), Frames: make([][]byte, batchLen)}
	mem := make([]byte, batchLen*(frameCap+headroom))
	for i := range b.Bufs {
		b.Bufs[i] = mem[i*(frameCap+headroom) : (i+1)*(frameCap+headroom) : (i+1)*(frameCap+headroom)]
	}
	return b
}

// Pipe is an in-process Transport: two ends, each frame sent on one end is
// received, copied, on the other. Send never blocks for long: when the peer
// does not read, frames are dropped (like a full socket buffer).
type Pipe struct {
	in, out   chan [][]byte
	closed    chan struct{}
	closeOnce *sync.Once
	// pending frames of a received batch not yet handed out
	rest [][]byte
}

// NewPipe returns the two ends of a pipe with room for depth batches each way.
func NewPipe(depth int) (*Pipe, *Pipe) {
	a2b := make(chan [][]byte, depth)
	b2a := make(chan [][]byte, depth)
	closed := make(chan struct{})
	once := &sync.Once{}
	return &Pipe{in: b2a, out: a2b, closed: closed, closeOnce: once},
		&Pipe{in: a2b, out: b2a, closed: closed, closeOnce: once}
}

func (p *Pipe) Recv(b *RxBatch) error {
	b.N = 0
	if len(p.rest) == 0 {
		select {
		case fs := <-p.in:
			p.rest = fs
		case <-p.closed:
			return ErrClosed
		case <-time.After(50 * time.Millisecond):
			return nil
		}
	}
	for len(p.rest) > 0 && b.N < len(b.Bufs) {
		n := copy(b.Bufs[b.N][headroom:], p.rest[0])
		b.Frames[b.N] = b.Bufs[b.N][headroom : headroom+n]
		b.N++
		p.rest = p.rest[1:]
	}
	return nil
}

func (p *Pipe) Send(frames [][]byte) (int, error) {
	if len(frames) == 0 {
		return 0, nil
	}
	cp := make([][]byte, len(frames))
	for i, f := range frames {
		cp[i] = append([]byte(nil), f...)
	}
	select {
	case p.out <- cp:
		return len(frames), nil
	case <-p.closed:
		return 0, ErrClosed
	case <-time.After(time.Second):
		return 0, nil
	}
}

func (p *Pipe) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}
