package org.bngpod.app.steering;

import org.onlab.packet.MacAddress;
import org.onlab.packet.VlanId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.IndexTableId;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.ArpPaCriterion;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthCriterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.criteria.VlanIdCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Translates ONOS flow rules of one single-table switch into Open vSwitch
 * flows (ovs-ofctl syntax, OpenFlow 1.3), as ONOS's OpenFlow provider would
 * program them, except for the inner VLAN: OVS matches a second tag only
 * after popping the first, so a rule matching VLAN_VID S and INNER_VLAN_VID C
 * becomes
 *
 * <pre>
 * table 0: in_port, dl_vlan=S          -> pop_vlan, write_metadata:S, goto_table:1
 * table 1: in_port, metadata=S, dl_vlan=C (+ the rest of the match)
 *                                      -> push_vlan:TPID, mod_vlan_vid:S, output
 * table 1: priority 0                  -> drop
 * </pre>
 *
 * where TPID is the access port's (the emulated switch cannot read the TPID it
 * popped), as the static fold does (docs/switch-fold.md). Anything else it
 * cannot express is refused with an exception: a real failure, not a skip.
 */
final class OvsFlows {

    static final int TABLE_INNER_VLAN = 1;

    private final Map<PortNumber, Integer> accessTpids;

    /**
     * Creates a translator.
     *
     * @param accessTpids the downstream outer TPID of every access port
     */
    OvsFlows(Map<PortNumber, Integer> accessTpids) {
        this.accessTpids = Map.copyOf(accessTpids);
    }

    /** A rule ovs-ofctl cannot take as ONOS wrote it. */
    static final class UntranslatableRuleException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UntranslatableRuleException(FlowRule rule, String why) {
            super(why + ": " + rule);
        }
    }

    /**
     * Translates a whole table.
     *
     * @param rules the switch's flow rules
     * @return ovs-ofctl flows, one per line, in a stable order
     */
    List<String> translate(List<FlowRule> rules) {
        List<FlowRule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt(FlowRule::priority).reversed()
                            .thenComparing(r -> r.selector().toString()));
        List<String> flows = new ArrayList<>();
        // (in_port, S-tag) -> the pop rule of table 0, one per pair whatever the C-tags
        Map<String, String> pops = new TreeMap<>();
        boolean inner = false;
        for (FlowRule rule : sorted) {
            if (!(rule.table() instanceof IndexTableId) || ((IndexTableId) rule.table()).id() != 0) {
                throw new UntranslatableRuleException(rule, "not in table 0 (single-table pipeline)");
            }
            String actions = actions(rule);
            Criterion innerVlan = rule.selector().getCriterion(Criterion.Type.INNER_VLAN_VID);
            if (innerVlan == null) {
                flows.add(flow(0, rule, match(rule, false), actions));
                continue;
            }
            inner = true;
            PortNumber in = inPort(rule);
            VlanId stag = vlan(rule, Criterion.Type.VLAN_VID);
            VlanId ctag = ((VlanIdCriterion) innerVlan).vlanId();
            if (in == null || stag == null || stag.equals(VlanId.NONE) || stag.equals(VlanId.ANY)
                    || ctag.equals(VlanId.NONE) || ctag.equals(VlanId.ANY)) {
                throw new UntranslatableRuleException(rule, "an inner VLAN needs in_port and exact outer and inner VLANs");
            }
            PortNumber out = output(rule);
            Integer tpid = accessTpids.containsKey(in) ? accessTpids.get(in) : accessTpids.get(out);
            if (out == null || tpid == null) {
                throw new UntranslatableRuleException(rule, "an inner-VLAN rule must output from or to an access port");
            }
            String key = "in_port=" + in.toLong() + ",dl_vlan=" + stag.toShort();
            pops.merge(key, String.format("table=0,priority=%d,%s,actions=pop_vlan,write_metadata:%d,goto_table:%d",
                                          rule.priority(), key, stag.toShort(), TABLE_INNER_VLAN),
                       (a, b) -> a.compareTo(b) >= 0 ? a : b);
            String match = "in_port=" + in.toLong() + ",metadata=" + stag.toShort() + ",dl_vlan=" + ctag.toShort()
                    + match(rule, true);
            flows.add(flow(TABLE_INNER_VLAN, rule, match,
                           String.format("push_vlan:0x%04x,mod_vlan_vid:%d,output:%d", tpid, stag.toShort(),
                                         out.toLong())));
        }
        flows.addAll(pops.values());
        if (inner) {
            flows.add("table=" + TABLE_INNER_VLAN + ",priority=0,actions=drop");
        }
        return flows;
    }

    private static String flow(int table, FlowRule rule, String match, String actions) {
        return String.format("table=%d,priority=%d,cookie=0x%x%s,actions=%s", table, rule.priority(),
                             rule.id().value(), match.isEmpty() || match.startsWith(",") ? match : "," + match,
                             actions);
    }

    private static PortNumber inPort(FlowRule rule) {
        Criterion c = rule.selector().getCriterion(Criterion.Type.IN_PORT);
        return c == null ? null : ((PortCriterion) c).port();
    }

    private static VlanId vlan(FlowRule rule, Criterion.Type type) {
        Criterion c = rule.selector().getCriterion(type);
        return c == null ? null : ((VlanIdCriterion) c).vlanId();
    }

    /**
     * The match of a rule; with inner, without in_port and the VLANs (the
     * caller writes them for table 1), each part led by a comma.
     */
    private static String match(FlowRule rule, boolean inner) {
        StringBuilder m = new StringBuilder();
        for (Criterion c : rule.selector().criteria()) {
            switch (c.type()) {
                case IN_PORT:
                    if (!inner) {
                        PortNumber port = ((PortCriterion) c).port();
                        if (port.isLogical()) {
                            throw new UntranslatableRuleException(rule, "logical in_port " + port);
                        }
                        m.append(",in_port=").append(port.toLong());
                    }
                    break;
                case VLAN_VID:
                    if (!inner) {
                        VlanId vlan = ((VlanIdCriterion) c).vlanId();
                        if (vlan.equals(VlanId.NONE)) {
                            m.append(",vlan_tci=0x0000/0x1000");
                        } else if (vlan.equals(VlanId.ANY)) {
                            m.append(",vlan_tci=0x1000/0x1000");
                        } else {
                            m.append(",dl_vlan=").append(vlan.toShort());
                        }
                    }
                    break;
                case INNER_VLAN_VID:
                    break;
                case ETH_DST:
                case ETH_SRC:
                    EthCriterion eth = (EthCriterion) c;
                    m.append(c.type() == Criterion.Type.ETH_DST ? ",dl_dst=" : ",dl_src=").append(eth.mac());
                    if (eth.mask() != null && !eth.mask().equals(MacAddress.BROADCAST)) {
                        m.append('/').append(eth.mask());
                    }
                    break;
                case ETH_TYPE:
                    m.append(String.format(",dl_type=0x%04x", ((EthTypeCriterion) c).ethType().toShort() & 0xffff));
                    break;
                case ARP_TPA:
                    m.append(",arp_tpa=").append(((ArpPaCriterion) c).ip());
                    break;
                case ARP_SPA:
                    m.append(",arp_spa=").append(((ArpPaCriterion) c).ip());
                    break;
                default:
                    throw new UntranslatableRuleException(rule, "no translation for criterion " + c.type());
            }
        }
        return m.toString();
    }

    private static PortNumber output(FlowRule rule) {
        List<Instruction> immediate = rule.treatment().immediate();
        if (immediate.size() == 1 && immediate.get(0).type() == Instruction.Type.OUTPUT) {
            return ((Instructions.OutputInstruction) immediate.get(0)).port();
        }
        return null;
    }

    private static String actions(FlowRule rule) {
        TrafficTreatment t = rule.treatment();
        if (!t.deferred().isEmpty() || t.clearedDeferred() || t.tableTransition() != null
                || t.writeMetadata() != null || t.metered() != null || !t.meters().isEmpty()
                || t.statTrigger() != null) {
            throw new UntranslatableRuleException(rule, "only immediate output or drop is translated");
        }
        List<Instruction> immediate = t.immediate();
        if (immediate.isEmpty()) {
            return "drop";
        }
        if (immediate.size() == 1 && immediate.get(0).type() == Instruction.Type.NOACTION) {
            return "drop";
        }
        StringBuilder a = new StringBuilder();
        for (Instruction i : immediate) {
            if (i.type() != Instruction.Type.OUTPUT) {
                throw new UntranslatableRuleException(rule, "no translation for instruction " + i);
            }
            PortNumber port = ((Instructions.OutputInstruction) i).port();
            if (port.isLogical()) {
                throw new UntranslatableRuleException(rule, "logical output port " + port);
            }
            a.append(a.length() == 0 ? "" : ",").append("output:").append(port.toLong());
        }
        return a.toString();
    }
}
