package vxlan

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

func TestDecodeAndAppend(t *testing.T) {
	eth := bytes.Repeat([]byte{0xee}, 14)
	d := Append(nil, 0x0a0b0c, eth)
	if want := append([]byte{0x08, 0, 0, 0, 0x0a, 0x0b, 0x0c, 0}, eth...); !bytes.Equal(d, want) {
		t.Fatalf("Append: %x, want %x", d, want)
	}
	vni, frame, err := Decode(d)
	if err != nil || vni != 0x0a0b0c || !bytes.Equal(frame, eth) {
		t.Fatalf("Decode: %#x %x %v", vni, frame, err)
	}
	if d := Append(nil, 0x1ffffff, eth); d[4] != 0xff || d[5] != 0xff || d[6] != 0xff {
		t.Fatalf("VNI wider than 24 bits leaked: %x", d[:8])
	}
	for name, bad := range map[string][]byte{
		"empty":        nil,
		"header only":  {0x08, 0, 0, 0, 0, 0, 1, 0},
		"short frame":  append([]byte{0x08, 0, 0, 0, 0, 0, 1, 0}, eth[:13]...),
		"no I flag":    append([]byte{0x00, 0, 0, 0, 0, 0, 1, 0}, eth...),
		"other flags":  append([]byte{0xf7, 0, 0, 0, 0, 0, 1, 0}, eth...),
		"7-byte datum": {0x08, 0, 0, 0, 0, 0, 1},
	} {
		if _, _, err := Decode(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, 7, make([]byte, 64)))
	f.Add([]byte{0x08})
	f.Fuzz(func(t *testing.T, b []byte) {
		vni, frame, err := Decode(b)
		if err != nil {
			return
		}
		if vni > 0xffffff || len(frame) < minFrame || !bytes.Equal(Append(nil, vni, frame)[HeaderLen:], frame) {
			t.Fatalf("vni %#x frame %d bytes", vni, len(frame))
		}
	})
}

// A batch larger than one sendmmsg arrives whole and in order at a peer that
// reads in batches; what the reader gets is only valid during the call.
func TestBatchToServe(t *testing.T) {
	a, err := Listen(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Listen(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*BatchSize + 5
	var mu sync.Mutex
	var got [][]byte
	var from []netip.AddrPort
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Serve(func(ua *net.UDPAddr, dgram []byte) {
			mu.Lock()
			got = append(got, append([]byte(nil), dgram...))
			from = append(from, ua.AddrPort())
			mu.Unlock()
		}, func(err error) { t.Errorf("read: %v", err) })
	}()
	to := net.UDPAddrFromAddrPort(b.LocalAddr())
	batch := a.NewBatch()
	for i := 0; i < n; i++ {
		if batch.Full() {
			if unsent, err := batch.Flush(); unsent != 0 || err != nil {
				t.Fatalf("flush: %d unsent, %v", unsent, err)
			}
		}
		batch.Add(to, uint32(i), []byte(fmt.Sprintf("frame %03d of the batch test", i)))
	}
	if batch.Len() != n-3*BatchSize {
		t.Fatalf("waiting %d", batch.Len())
	}
	if unsent, err := batch.Flush(); unsent != 0 || err != nil || batch.Len() != 0 {
		t.Fatalf("flush: %d unsent, %v, %d waiting", unsent, err, batch.Len())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d datagrams arrived", k, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Close()
	<-done // Serve returns when the socket closes
	for i, d := range got {
		vni, frame, err := Decode(d)
		if err != nil || vni != uint32(i) || string(frame) != fmt.Sprintf("frame %03d of the batch test", i) {
			t.Fatalf("datagram %d: vni %d %q %v", i, vni, frame, err)
		}
		if from[i] != a.LocalAddr() {
			t.Fatalf("datagram %d from %v", i, from[i])
		}
	}
	// After Close, Flush reports what it could not send.
	a.Close()
	batch.Add(to, 1, make([]byte, 14))
	if unsent, err := batch.Flush(); unsent != 1 || !errors.Is(err, net.ErrClosed) {
		t.Fatalf("flush after close: %d unsent, %v", unsent, err)
	}
}
