package ppp

import (
	"strings"
	"testing"
)

// stubLayer records the layer actions with the number of packets sent
// before them, so that their order relative to packets can be checked.
type stubLayer struct {
	l   *Link
	log []stubAction
}

type stubAction struct {
	at   int
	name string
}

func (s *stubLayer) rec(n string) { s.log = append(s.log, stubAction{len(s.l.pkts), n}) }

func (s *stubLayer) appendOptions(dst []byte) []byte { return dst }

// checkRequest: an empty option list is acceptable (RCR+), anything else not (RCR-).
func (s *stubLayer) checkRequest(opts, dst []byte, rejectOnly bool) (uint8, []byte, bool) {
	if len(opts) == 0 {
		return CodeConfAck, dst, true
	}
	return CodeConfNak, append(dst, opts...), true
}
func (s *stubLayer) acked([]byte)       {}
func (s *stubLayer) gotNak([]byte) bool { return true }
func (s *stubLayer) gotRej([]byte) bool { return true }
func (s *stubLayer) up()                { s.rec("tlu") }
func (s *stubLayer) down()              { s.rec("tld") }
func (s *stubLayer) finished()          { s.rec("tlf") }

// TestAutomatonTable checks cp against the state transition table of
// RFC 1661 section 4.1 for the states and events a PPPoE session meets
// (Initial/Starting are never used: the lower layer is up from the start).
// Actions irc and zrc are not visible on the wire and are left out.
func TestAutomatonTable(t *testing.T) {
	states := map[string]cpState{"Closed": stClosed, "Stopped": stStopped, "Closing": stClosing, "Stopping": stStopping,
		"Req-Sent": stReqSent, "Ack-Rcvd": stAckRcvd, "Ack-Sent": stAckSent, "Opened": stOpened}
	order := []string{"Closed", "Stopped", "Closing", "Stopping", "Req-Sent", "Ack-Rcvd", "Ack-Sent", "Opened"}
	// event -> one cell per state in `order`: "actions/next state".
	table := map[string][]string{
		"RCR+":  {"sta/Closed", "scr,sca/Ack-Sent", "/Closing", "/Stopping", "sca/Ack-Sent", "sca,tlu/Opened", "sca/Ack-Sent", "tld,scr,sca/Ack-Sent"},
		"RCR-":  {"sta/Closed", "scr,scn/Req-Sent", "/Closing", "/Stopping", "scn/Req-Sent", "scn/Ack-Rcvd", "scn/Req-Sent", "tld,scr,scn/Req-Sent"},
		"RCA":   {"sta/Closed", "sta/Stopped", "/Closing", "/Stopping", "/Ack-Rcvd", "scr/Req-Sent", "tlu/Opened", "tld,scr/Req-Sent"},
		"RCN":   {"sta/Closed", "sta/Stopped", "/Closing", "/Stopping", "scr/Req-Sent", "scr/Req-Sent", "scr/Ack-Sent", "tld,scr/Req-Sent"},
		"RTR":   {"sta/Closed", "sta/Stopped", "sta/Closing", "sta/Stopping", "sta/Req-Sent", "sta/Req-Sent", "sta/Req-Sent", "tld,sta/Stopping"},
		"RTA":   {"/Closed", "/Stopped", "tlf/Closed", "tlf/Stopped", "/Req-Sent", "/Req-Sent", "/Ack-Sent", "tld,scr/Req-Sent"},
		"RXJ+":  {"/Closed", "/Stopped", "/Closing", "/Stopping", "/Req-Sent", "/Req-Sent", "/Ack-Sent", "/Opened"},
		"RXJ-":  {"tlf/Closed", "tlf/Stopped", "tlf/Closed", "tlf/Stopped", "tlf/Stopped", "tlf/Stopped", "tlf/Stopped", "tld,str/Stopping"},
		"RUC":   {"scj/Closed", "scj/Stopped", "scj/Closing", "scj/Stopping", "scj/Req-Sent", "scj/Ack-Rcvd", "scj/Ack-Sent", "scj/Opened"},
		"TO+":   {"-", "-", "str/Closing", "str/Stopping", "scr/Req-Sent", "scr/Req-Sent", "scr/Ack-Sent", "-"},
		"TO-":   {"-", "-", "tlf/Closed", "tlf/Stopped", "tlf/Stopped", "tlf/Stopped", "tlf/Stopped", "-"},
		"Close": {"/Closed", "/Closed", "/Closing", "/Closing", "str/Closing", "str/Closing", "str/Closing", "tld,str/Closing"},
	}
	names := map[uint8]string{CodeConfReq: "scr", CodeConfAck: "sca", CodeConfNak: "scn", CodeConfRej: "scn",
		CodeTermReq: "str", CodeTermAck: "sta", CodeCodeRej: "scj"}
	for ev, cells := range table {
		for i, cell := range cells {
			if cell == "-" {
				continue
			}
			from := order[i]
			t.Run(ev+"/"+from, func(t *testing.T) {
				l := NewLink(LinkConfig{})
				l.started = true
				stub := &stubLayer{l: l}
				c := &cp{}
				c.init(l, 0x8021, stub)
				c.state = states[from]
				c.reqSent, c.reqID, c.counter = true, 7, 3
				switch ev {
				case "RCR+":
					c.input([]byte{CodeConfReq, 1, 0, 4})
				case "RCR-":
					c.input([]byte{CodeConfReq, 1, 0, 6, 0xff, 2})
				case "RCA":
					c.input([]byte{CodeConfAck, 7, 0, 4})
				case "RCN":
					c.input([]byte{CodeConfNak, 7, 0, 4})
				case "RTR":
					c.input([]byte{CodeTermReq, 1, 0, 4})
				case "RTA":
					c.input([]byte{CodeTermAck, 1, 0, 4})
				case "RXJ+":
					c.input([]byte{CodeCodeRej, 1, 0, 8, 0x20, 1, 0, 4})
				case "RXJ-":
					c.input([]byte{CodeCodeRej, 1, 0, 8, CodeTermAck, 1, 0, 4})
				case "RUC":
					if !c.input([]byte{0x20, 1, 0, 4}) {
						c.scj([]byte{0x20, 1, 0, 4})
					}
				case "TO+":
					c.timeout()
				case "TO-":
					c.counter = 0
					c.timeout()
				case "Close":
					c.close()
				}
				var got []string
				for j, p := range l.pkts {
					for _, a := range stub.log {
						if a.at == j {
							got = append(got, a.name)
						}
					}
					got = append(got, names[p.Data[0]])
				}
				for _, a := range stub.log {
					if a.at == len(l.pkts) {
						got = append(got, a.name)
					}
				}
				gotCell := strings.Join(got, ",") + "/" + c.state.String()
				if gotCell != cell {
					t.Fatalf("%s in %s: got %s, want %s", ev, from, gotCell, cell)
				}
				timed := c.state == stClosing || c.state == stStopping || c.state == stReqSent || c.state == stAckRcvd || c.state == stAckSent
				sent := strings.Contains(gotCell, "scr") || strings.Contains(gotCell, "str")
				if timed && sent && c.deadline.IsZero() {
					t.Fatalf("restart timer not started in %s", c.state)
				}
				if !timed && !c.deadline.IsZero() {
					t.Fatalf("restart timer running in %s", c.state)
				}
			})
		}
	}
}
