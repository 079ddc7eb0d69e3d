package api

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

var exportSample = []ExportedSession{
	{ID: "00000001", Kind: "pppoe", User: "a,\"b\"\nc", Instance: 1, LineGroup: "lg1", Port: "olt1", TPID: 0x8100,
		STag: 100, CTag: 7, PPPoEID: 0xfffe, MAC: "02:00:00:00:00:01", ACMAC: "02:ac:00:00:00:01",
		Address: "100.64.0.2", IPv6Prefix: "2001:db8::/64", DelegatedPrefix: "2001:db8:1::/56", QosProfile: "silver",
		RateDown: 1 << 40, RateUp: 1},
	{ID: "2", Kind: "ipoe", Port: "olt2", TPID: 0x88a8, STag: 4094, MAC: "02:00:00:00:00:02"},
}

func TestExportRoundTrip(t *testing.T) {
	for _, format := range []string{"json", "csv"} {
		var b bytes.Buffer
		if err := WriteExport(&b, format, exportSample); err != nil {
			t.Fatal(err)
		}
		got, err := ReadExport(&b, format)
		if err != nil || !reflect.DeepEqual(got, exportSample) {
			t.Fatalf("%s: %v %+v", format, err, got)
		}
	}
	if err := WriteExport(&bytes.Buffer{}, "xml", nil); err == nil {
		t.Fatal("xml written")
	}
}

// An export is outside input: what no bng-cp session can be is refused with
// the field named.
func TestExportRefused(t *testing.T) {
	head := strings.Join(ExportColumns, ",") + "\n"
	ok := "1,pppoe,u,1,lg1,olt1,33024,100,7,5,02:00:00:00:00:01,02:ac:00:00:00:01,100.64.0.2,,,p,0,0\n"
	if _, err := ReadExport(strings.NewReader(head+ok), "csv"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(head, "tpid", "TPID", 1) + ok, `column 7 is "TPID"`},
		{head + strings.Replace(ok, ",5,", ",0,", 1), "PPPoE session id 0"},
		{head + strings.Replace(ok, ",5,", ",65535,", 1), "PPPoE session id 65535"},
		{head + strings.Replace(ok, ",5,", ",65536,", 1), "pppoe_id \"65536\""},
		{head + strings.Replace(ok, "pppoe", "ipoe", 1), "an IPoE session with PPPoE session id 5"},
		{head + strings.Replace(ok, "pppoe", "l2tp", 1), `kind "l2tp"`},
		{head + strings.Replace(ok, "33024", "33025", 1), "TPID 0x8101"},
		{head + strings.Replace(ok, ",100,7,", ",4095,7,", 1), "tags 4095/7"},
		{head + strings.Replace(ok, ",100,7,", ",0,7,", 1), "tags 0/7"},
		{head + strings.Replace(ok, "02:00:00:00:00:01", "02:00:00:00:00", 1), `mac "02:00:00:00:00"`},
		{head + strings.Replace(ok, "100.64.0.2", "2001:db8::1", 1), "want IPv4"},
		{head + strings.Replace(ok, ",,,p,", ",10.0.0.0/8,,p,", 1), "ipv6_prefix"},
		{head + strings.Replace(ok, ",0,0\n", ",0\n", 1), "wrong number of fields"},
		{head + strings.Replace(ok, "olt1", "", 1), "no port"},
		{"", "header"},
	} {
		_, err := ReadExport(strings.NewReader(c.in), "csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`[{"id":"1","kind":"pppoe","port":"p","stag":1,"pppoe_id":1,"mac":"02:00:00:00:00:01","extra":1}]`, "unknown field"},
		{`[{"id":"1","kind":"pppoe","port":"p","stag":1,"pppoe_id":70000}]`, "cannot unmarshal"},
		{`{}`, "cannot unmarshal"},
	} {
		_, err := ReadExport(strings.NewReader(c.in), "json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// Whatever the CSV reader takes, it writes back the same.
func FuzzReadExportCSV(f *testing.F) {
	var b bytes.Buffer
	_ = WriteExport(&b, "csv", exportSample)
	f.Add(b.String())
	f.Add(strings.Join(ExportColumns, ",") + "\n,,,,,,,,,,,,,,,,,\n")
	f.Fuzz(func(t *testing.T, in string) {
		list, err := ReadExport(strings.NewReader(in), "csv")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteExport(&out, "csv", list); err != nil {
			t.Fatal(err)
		}
		again, err := ReadExport(&out, "csv")
		if err != nil || !reflect.DeepEqual(again, list) {
			t.Fatalf("%v: %+v != %+v", err, again, list)
		}
	})
}
