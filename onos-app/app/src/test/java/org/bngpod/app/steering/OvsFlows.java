package org.bngpod.app.steering;

import org.onlab.packet.IpPrefix;
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
import org.onosproject.net.flow.criteria.IPCriterion;
import org.onosproject.net.flow.criteria.IPProtocolCriterion;
import org.onosproject.net.flow.criteria.IPv6NDTargetAddressCriterion;
import org.onosproject.net.flow.criteria.Icmpv6TypeCriterion;
import org.onosproject.net.flow.criteria.PortCriterion;
import org.onosproject.net.flow.criteria.VlanIdCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the flow rules of a single-table switch as the flow-mods ONOS 2.5.6's
 * OpenFlow 1.3 provider sends for them, in ovs-ofctl syntax: table, priority,
 * cookie (the flow id), {@code send_flow_rem}, the match, and the
 * apply-actions (none for a drop).
 *
 * <p>Strict in two ways, each a real failure and not a skip:</p>
 * <ul>
 *   <li>a rule with a criterion or instruction the provider does not encode
 *   ({@link OpenFlow13Encoding}: INNER_VLAN_VID among them) is refused, since
 *   the provider would send the flow-mod without it and the switch would
 *   match more than the rule says;</li>
 *   <li>a rule whose match lacks a field's OpenFlow 1.3 prerequisites
 *   ({@link OpenFlow13Encoding#missingPrerequisites}) is refused: the provider
 *   sends it, and the switch answers OFPBMC_BAD_PREREQ;</li>
 *   <li>a rule it encodes but this translator does not know (IPv4 matches,
 *   VLAN pushes and pops, groups, other tables, ...) is refused too: the
 *   steering needs none of them.</li>
 * </ul>
 */
final class OvsFlows {

    /** OpenFlow 1.3's OFPCML_NO_BUFFER: the provider asks for whole frames on a punt. */
    private static final int NO_BUFFER = 0xffff;

    private OvsFlows() {
    }

    /** A rule the provider would not send as it is, or ovs-ofctl cannot take as written. */
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
     * @return ovs-ofctl flows, one per rule, highest priority first, in a stable order
     */
    static List<String> translate(List<FlowRule> rules) {
        List<FlowRule> sorted = new ArrayList<>(rules);
        sorted.sort(Comparator.comparingInt(FlowRule::priority).reversed()
                            .thenComparing(r -> r.selector().toString()));
        List<String> flows = new ArrayList<>();
        for (FlowRule rule : sorted) {
            flows.add(flow(rule));
        }
        return flows;
    }

    /**
     * Returns the flow-mod ADD of one rule (ovs-ofctl add-flows syntax).
     *
     * @param rule a flow rule of table 0
     * @return the flow
     * @throws UntranslatableRuleException if the provider would not encode all of it, or it is not translated
     */
    static String flow(FlowRule rule) {
        check(rule);
        return String.format("table=0,priority=%d,cookie=0x%x,send_flow_rem%s,actions=%s", rule.priority(),
                             rule.id().value(), match(rule), actions(rule));
    }

    /**
     * Returns the entry a rule occupies: {@code table=0,priority=P} and its
     * match, which is what a strict delete names (the provider sends an
     * OFPFC_DELETE_STRICT with the rule's match and priority).
     *
     * @param rule a flow rule of table 0
     * @return ovs-ofctl del-flows --strict syntax
     * @throws UntranslatableRuleException if the provider would not encode all of it, or it is not translated
     */
    static String entry(FlowRule rule) {
        check(rule);
        return "table=0,priority=" + rule.priority() + match(rule);
    }

    private static void check(FlowRule rule) {
        List<String> lost = OpenFlow13Encoding.notEncoded(rule);
        if (!lost.isEmpty()) {
            throw new UntranslatableRuleException(rule, "ONOS 2.5.6's OpenFlow 1.3 provider does not encode "
                    + String.join(", ", lost) + " (it would send the flow-mod without it)");
        }
        List<String> prerequisites = OpenFlow13Encoding.missingPrerequisites(rule);
        if (!prerequisites.isEmpty()) {
            throw new UntranslatableRuleException(rule, "an OpenFlow 1.3 switch refuses the match (OFPBMC_BAD_PREREQ): "
                    + String.join(", ", prerequisites));
        }
        if (!(rule.table() instanceof IndexTableId) || ((IndexTableId) rule.table()).id() != 0) {
            throw new UntranslatableRuleException(rule, "not in table 0 (single-table pipeline)");
        }
    }

    /** The match, each part led by a comma. */
    private static String match(FlowRule rule) {
        StringBuilder m = new StringBuilder();
        for (Criterion c : rule.selector().criteria()) {
            switch (c.type()) {
                case IN_PORT:
                    PortNumber port = ((PortCriterion) c).port();
                    if (port.isLogical()) {
                        throw new UntranslatableRuleException(rule, "logical in_port " + port);
                    }
                    m.append(",in_port=").append(port.toLong());
                    break;
                case VLAN_VID:
                    VlanId vlan = ((VlanIdCriterion) c).vlanId();
                    if (vlan.equals(VlanId.NONE)) {
                        m.append(",vlan_tci=0x0000/0x1000");
                    } else if (vlan.equals(VlanId.ANY)) {
                        m.append(",vlan_tci=0x1000/0x1000");
                    } else {
                        m.append(",dl_vlan=").append(vlan.toShort());
                    }
                    break;
                case ETH_DST:
                case ETH_DST_MASKED:
                case ETH_SRC:
                    EthCriterion eth = (EthCriterion) c;
                    m.append(c.type() == Criterion.Type.ETH_SRC ? ",dl_src=" : ",dl_dst=").append(eth.mac());
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
                case IP_PROTO:
                    m.append(",nw_proto=").append(((IPProtocolCriterion) c).protocol());
                    break;
                case IPV6_SRC:
                    IpPrefix src = ((IPCriterion) c).ip();
                    m.append(",ipv6_src=").append(src.address());
                    if (src.prefixLength() != IpPrefix.MAX_INET6_MASK_LENGTH) {
                        m.append('/').append(src.prefixLength());
                    }
                    break;
                case ICMPV6_TYPE:
                    m.append(",icmpv6_type=").append(((Icmpv6TypeCriterion) c).icmpv6Type());
                    break;
                case IPV6_ND_TARGET:
                    m.append(",nd_target=").append(((IPv6NDTargetAddressCriterion) c).targetAddress());
                    break;
                default:
                    throw new UntranslatableRuleException(rule, "no translation for criterion " + c.type());
            }
        }
        return m.toString();
    }

    private static String actions(FlowRule rule) {
        TrafficTreatment t = rule.treatment();
        if (!t.deferred().isEmpty() || t.clearedDeferred() || t.tableTransition() != null
                || t.writeMetadata() != null || t.metered() != null || !t.meters().isEmpty()
                || t.statTrigger() != null) {
            throw new UntranslatableRuleException(rule, "only immediate outputs or a drop are translated");
        }
        List<Instruction> immediate = t.immediate();
        // the provider sends no apply-actions instruction for these: OpenFlow drops the frame
        if (immediate.isEmpty() || immediate.get(0).type() == Instruction.Type.NOACTION) {
            return "drop";
        }
        StringBuilder a = new StringBuilder();
        for (Instruction i : immediate) {
            if (i.type() != Instruction.Type.OUTPUT) {
                throw new UntranslatableRuleException(rule, "no translation for instruction " + i);
            }
            PortNumber port = ((Instructions.OutputInstruction) i).port();
            a.append(a.length() == 0 ? "" : ",");
            if (port.equals(PortNumber.CONTROLLER)) {
                a.append("CONTROLLER:").append(NO_BUFFER);
            } else if (port.isLogical()) {
                throw new UntranslatableRuleException(rule, "logical output port " + port);
            } else {
                a.append("output:").append(port.toLong());
            }
        }
        return a.toString();
    }
}
