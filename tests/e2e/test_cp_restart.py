"""E2E on the lab pod: the control plane stops for longer than LCP echo interval x
failures and starts again. The DP answers the keepalives meanwhile, so the scapy
subscriber keeps its session (echo replies, no PADT, no Terminate-Request); after the
restart bng-cp has the same session with the same Acct-Session-Id, traffic passes, and
the Interims resume under that id (docs/cp/sessions.md "Restarts")."""

import signal
import time

import pytest
from harness.pppoe_client import IPV4, LCP
from scapy.layers.inet import IP, UDP

from bngpod import emu

from . import podfix
from .podfix import Line, dial

pytestmark = pytest.mark.pod

INTERIM_S = 5
ECHO_INTERVAL_S = 1
ECHO_FAILURES = 3
lab_pod = podfix.lab_pod_fixture(
    interim=f"{INTERIM_S}s", lcp_echo_interval=f"{ECHO_INTERVAL_S}s", lcp_echo_failures=str(ECHO_FAILURES)
)
OUTAGE_S = 2 * ECHO_INTERVAL_S * ECHO_FAILURES  # twice what would kill a session the CP kept alive


def _udp_echo(client, addr: str, tag: bytes, tries: int = 5) -> bool:
    packet = IP(src=addr, dst=emu.INET_HOST, ttl=64) / UDP(sport=40300, dport=7) / tag
    for _ in range(tries):
        client.send(client.ppp_frame(IPV4, bytes(packet)))
        try:
            client.expect(lambda r: r.proto == IPV4 and tag in bytes(r.frame), 1.0, "UDP echo")
            return True
        except AssertionError:
            continue
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_cp_outage_keeps_sessions_and_accounting(lab_pod, sig):
    pod = lab_pod
    name = "lg1-1" if sig == signal.SIGTERM else "lg1-2"
    with Line(pod.port("access1")) as line:
        client, addr = dial(line, pod, name, f"02:5b:00:00:0c:0{1 if sig == signal.SIGTERM else 2}")
        sess = podfix.cp_session(name)
        asid, psid = sess["acct_session_id"], sess["pppoe_session_id"]
        podfix.wait_accounting(pod, asid, "Start")
        podfix.wait_accounting(pod, asid, "Interim-Update", timeout=2 * INTERIM_S + 5)
        assert _udp_echo(client, addr, b"before")
        old_pid = emu.cp_pid()

        emu.stop_cp(sig)
        t_stop = time.monotonic()
        answered_before = client.echo_replies_sent
        sent = replied = 0
        while time.monotonic() - t_stop < OUTAGE_S:
            sent += 1
            try:
                client.echo(timeout=1.0)
                replied += 1
            except AssertionError:
                pass
            time.sleep(0.3)
        dp_probes = client.echo_replies_sent - answered_before
        outage = time.monotonic() - t_stop
        interims_before = len(podfix.accounting(pod, asid, "Interim-Update"))
        new_pid = emu.start_cp()
        t_back = time.monotonic() - t_stop
        print(
            f"\n{signal.Signals(sig).name}: bng-cp {old_pid} stopped {outage:.1f} s (echo {ECHO_INTERVAL_S}s x "
            f"{ECHO_FAILURES}); our echoes answered {replied}/{sent}, DP echo requests answered {dp_probes}; "
            f"bng-cp {new_pid} associated after {t_back:.1f} s"
        )
        assert new_pid != old_pid and emu.status()["processes"]["bng-cp"]["pid"] == new_pid
        assert replied == sent, f"the DP answered {replied} of {sent} echoes while the CP was away"
        assert dp_probes >= ECHO_FAILURES, "the DP stopped probing the subscriber"
        assert not client.padt_received.is_set() and not client.terminated_by_peer.is_set()
        # nothing of ours reached the client that is not keepalive or data
        others = [r for r in client.drain() if r.discovery or (r.proto == LCP and r.ppp_code not in (9, 10))]
        assert not others, others

        after = podfix.cp_session(name)
        assert (after["acct_session_id"], after["pppoe_session_id"], after["ipv4"]) == (asid, psid, addr)
        assert _udp_echo(client, addr, b"after")
        deadline = time.monotonic() + 3 * INTERIM_S + 5
        while len(interims := podfix.accounting(pod, asid, "Interim-Update")) <= interims_before:
            assert time.monotonic() < deadline, f"no Interim after the restart: {podfix.accounting(pod, asid)}"
            time.sleep(0.2)
        resumed, last_before = interims[interims_before], interims[interims_before - 1]
        print(
            f"Interim before the stop: {podfix.octets(last_before, 'Input')} octets up; first after the restart: "
            f"{podfix.octets(resumed, 'Input')}"
        )
        # the usage of the time before the stop (held back by the DP while the CP was away,
        # or persisted by the CP) is still counted: nothing was lost or restarted
        assert podfix.octets(resumed, "Input") >= max(podfix.octets(last_before, "Input"), 28 + len(b"before"))
        client.terminate()
        podfix.wait_accounting(pod, asid, "Stop")
    kinds = [r.get("Acct-Status-Type") for r in podfix.accounting(pod, asid)]
    print(f"accounting {asid}: {kinds}")
    assert kinds.count("Start") == 1 and kinds[-1] == "Stop" and kinds.count("Stop") == 1
    assert kinds.count("Interim-Update") > interims_before


def test_stop_and_start_cp_refuse_wrong_states(lab_pod):
    emu.stop_cp()
    try:
        with pytest.raises(emu.EmuError, match="not running"):
            emu.stop_cp()
    finally:
        emu.start_cp()
    with pytest.raises(emu.EmuError, match="already running"):
        emu.start_cp()
