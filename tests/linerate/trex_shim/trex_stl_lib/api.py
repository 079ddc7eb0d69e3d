"""A stand-in for TRex's trex_stl_lib.api (TRex itself is not installable here), as strict as
the parts the generated profiles use: the constructors take only the keywords TRex's take,
STLTXCont exactly one rate, and the scapy layers are scapy's own (TRex re-exports scapy).
test_profiles.py loads the generated profiles against it and builds their packets."""

from scapy.layers.inet import IP, UDP  # noqa: F401
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether  # noqa: F401
from scapy.layers.ppp import PPP, PPPoE  # noqa: F401
from scapy.packet import Packet, Raw  # noqa: F401


class STLTXCont:
    def __init__(self, pps=None, bps_L1=None, bps_L2=None, percentage=None):  # noqa: N803
        given = [v for v in (pps, bps_L1, bps_L2, percentage) if v is not None]
        if len(given) > 1:
            raise ValueError("STLTXCont: one of pps, bps_L1, bps_L2, percentage")
        self.pps = pps if given else 1.0
        if self.pps is not None and self.pps <= 0:
            raise ValueError("STLTXCont: rate must be positive")


class STLPktBuilder:
    def __init__(self, pkt=None, pkt_buffer=None, vm=None, path_relative_to_profile=False, build_raw=False,
                 remove_fcs=True):  # fmt: skip
        if (pkt is None) == (pkt_buffer is None):
            raise ValueError("STLPktBuilder: pkt or pkt_buffer")
        if pkt is not None and not isinstance(pkt, Packet):
            raise TypeError("STLPktBuilder: pkt must be a scapy packet")
        self.pkt, self.vm = pkt, vm

    def get_pkt(self) -> bytes:
        return bytes(self.pkt)


class STLFlowLatencyStats:
    def __init__(self, pg_id):
        if not isinstance(pg_id, int) or pg_id < 0:
            raise ValueError("STLFlowLatencyStats: pg_id")
        self.pg_id = pg_id


class STLStream:
    def __init__(self, name=None, packet=None, mode=None, enabled=True, self_start=True, isg=0, flow_stats=None,
                 next=None, stream_id=None, action_count=0, random_seed=0, mac_src_override_by_pkt=None,
                 mac_dst_override_mode=None, dummy_stream=False, start_paused=False, core_id=-1):  # noqa: A002  # fmt: skip
        if packet is not None and not isinstance(packet, STLPktBuilder):
            raise TypeError("STLStream: packet must be an STLPktBuilder")
        if mode is not None and not isinstance(mode, STLTXCont):
            raise TypeError("STLStream: mode")
        if flow_stats is not None and not isinstance(flow_stats, STLFlowLatencyStats):
            raise TypeError("STLStream: flow_stats")
        self.name, self.packet, self.mode, self.flow_stats = name, packet, mode or STLTXCont(), flow_stats


class STLProfile:
    def __init__(self, streams=None):
        self.streams = streams or []
