package org.bngpod.app.steering;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Sets;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.EthTypeCriterion;
import org.onosproject.net.flow.criteria.IPProtocolCriterion;
import org.onosproject.net.flow.criteria.Icmpv6TypeCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.L0ModificationInstruction;
import org.onosproject.net.flow.instructions.L1ModificationInstruction;
import org.onosproject.net.flow.instructions.L2ModificationInstruction;
import org.onosproject.net.flow.instructions.L3ModificationInstruction;
import org.onosproject.net.flow.instructions.L4ModificationInstruction;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What ONOS 2.5.6's OpenFlow 1.3 provider puts on the wire for a flow rule,
 * read from its source (providers/openflow/flow, {@code FlowModBuilder.buildMatch}
 * and {@code FlowModBuilderVer13.buildActions}; opennetworkinglab/onos, the
 * versions the repository index holds). The provider does not refuse what it
 * cannot encode: it logs "Match type X not yet implemented." (or "Instruction
 * type X not yet implemented.", "Unimplemented action type X.") and sends the
 * flow-mod without that part. A real ONOS 2.5.6 did exactly that with
 * INNER_VLAN_VID (docs/onos/steering.md): the switch got a wider match than
 * the rule, and every rule that differed only in the dropped part became the
 * same OpenFlow entry. So a test switch must refuse such a rule instead.
 *
 * <p>The default driver (DefaultSingleTablePipeline, the one ONOS 2.5.6 gives
 * Open vSwitch 3.1) has no {@code ExtensionSelectorInterpreter} nor
 * {@code ExtensionTreatmentInterpreter}, so extensions are not encoded for it
 * either.</p>
 */
final class OpenFlow13Encoding {

    /** Criteria {@code FlowModBuilder.buildMatch} turns into an OXM match field. */
    static final Set<Criterion.Type> ENCODED_CRITERIA = EnumSet.of(
            Criterion.Type.IN_PORT, Criterion.Type.IN_PHY_PORT, Criterion.Type.METADATA,
            Criterion.Type.ETH_DST, Criterion.Type.ETH_DST_MASKED, Criterion.Type.ETH_SRC,
            Criterion.Type.ETH_SRC_MASKED, Criterion.Type.ETH_TYPE, Criterion.Type.VLAN_VID,
            Criterion.Type.VLAN_PCP, Criterion.Type.IP_DSCP, Criterion.Type.IP_ECN, Criterion.Type.IP_PROTO,
            Criterion.Type.IPV4_SRC, Criterion.Type.IPV4_DST, Criterion.Type.TCP_SRC, Criterion.Type.TCP_DST,
            Criterion.Type.UDP_SRC, Criterion.Type.UDP_DST, Criterion.Type.SCTP_SRC, Criterion.Type.SCTP_DST,
            Criterion.Type.ICMPV4_TYPE, Criterion.Type.ICMPV4_CODE, Criterion.Type.IPV6_SRC,
            Criterion.Type.IPV6_DST, Criterion.Type.IPV6_FLABEL, Criterion.Type.ICMPV6_TYPE,
            Criterion.Type.ICMPV6_CODE, Criterion.Type.IPV6_ND_TARGET, Criterion.Type.IPV6_ND_SLL,
            Criterion.Type.IPV6_ND_TLL, Criterion.Type.MPLS_LABEL, Criterion.Type.IPV6_EXTHDR,
            Criterion.Type.OCH_SIGID, Criterion.Type.OCH_SIGTYPE, Criterion.Type.ODU_SIGID,
            Criterion.Type.ODU_SIGTYPE, Criterion.Type.TUNNEL_ID, Criterion.Type.MPLS_BOS,
            Criterion.Type.ARP_OP, Criterion.Type.ARP_SHA, Criterion.Type.ARP_SPA, Criterion.Type.ARP_THA,
            Criterion.Type.ARP_TPA);

    /**
     * Criteria it drops with "Match type X not yet implemented.": every other
     * type of ONOS 2.5.6 (INNER_VLAN_VID, INNER_VLAN_PCP, the masked TCP, UDP
     * and SCTP ports, MPLS_TC, PBB_ISID, PBB_UCA, TCP_FLAGS, ACTSET_OUTPUT,
     * PACKET_TYPE, UNASSIGNED_40, PROTOCOL_INDEPENDENT, DUMMY, and EXTENSION on
     * the default driver).
     */
    static final Set<Criterion.Type> NOT_ENCODED_CRITERIA =
            Sets.complementOf(EnumSet.copyOf(ENCODED_CRITERIA));

    /**
     * Instruction types {@code buildActions} encodes (each immediate or
     * deferred action). TABLE, METADATA and METER are not actions: a
     * treatment carries them as its table transition, write-metadata and
     * meter, which {@code buildFlowAdd} turns into instructions.
     */
    static final Set<Instruction.Type> ENCODED_INSTRUCTIONS = EnumSet.of(
            Instruction.Type.NOACTION, Instruction.Type.OUTPUT, Instruction.Type.GROUP, Instruction.Type.QUEUE,
            Instruction.Type.L0MODIFICATION, Instruction.Type.L1MODIFICATION, Instruction.Type.L2MODIFICATION,
            Instruction.Type.L3MODIFICATION, Instruction.Type.L4MODIFICATION, Instruction.Type.TABLE,
            Instruction.Type.METADATA, Instruction.Type.METER);

    /** The modifications of each layer it encodes; the others log "Unimplemented action type". */
    static final Set<L0ModificationInstruction.L0SubType> ENCODED_L0 =
            EnumSet.of(L0ModificationInstruction.L0SubType.OCH);
    static final Set<L1ModificationInstruction.L1SubType> ENCODED_L1 =
            EnumSet.of(L1ModificationInstruction.L1SubType.ODU_SIGID);
    static final Set<L2ModificationInstruction.L2SubType> ENCODED_L2 =
            EnumSet.allOf(L2ModificationInstruction.L2SubType.class);
    static final Set<L3ModificationInstruction.L3SubType> ENCODED_L3 = EnumSet.of(
            L3ModificationInstruction.L3SubType.IPV4_SRC, L3ModificationInstruction.L3SubType.IPV4_DST,
            L3ModificationInstruction.L3SubType.IPV6_SRC, L3ModificationInstruction.L3SubType.IPV6_DST,
            L3ModificationInstruction.L3SubType.IPV6_FLABEL, L3ModificationInstruction.L3SubType.ARP_SPA,
            L3ModificationInstruction.L3SubType.ARP_SHA, L3ModificationInstruction.L3SubType.ARP_OP,
            L3ModificationInstruction.L3SubType.DEC_TTL, L3ModificationInstruction.L3SubType.TTL_IN,
            L3ModificationInstruction.L3SubType.TTL_OUT);
    static final Set<L4ModificationInstruction.L4SubType> ENCODED_L4 =
            EnumSet.allOf(L4ModificationInstruction.L4SubType.class);

    private OpenFlow13Encoding() {
    }

    /**
     * Returns what of a rule ONOS 2.5.6's OpenFlow 1.3 provider would leave
     * out of its flow-mod (each as the provider logs it).
     *
     * @param rule a flow rule
     * @return the criteria and instructions it does not encode; empty when the flow-mod says all of the rule
     */
    static List<String> notEncoded(FlowRule rule) {
        List<String> lost = new ArrayList<>();
        for (Criterion c : rule.selector().criteria()) {
            if (!ENCODED_CRITERIA.contains(c.type())) {
                lost.add("criterion " + c.type());
            }
        }
        List<Instruction> all = new ArrayList<>(rule.treatment().immediate());
        all.addAll(rule.treatment().deferred());
        for (Instruction i : all) {
            if (!encoded(i)) {
                lost.add("instruction " + describe(i));
            }
        }
        return lost;
    }

    /** An instruction as the provider's log names it: its type, and its subtype for a modification. */
    private static String describe(Instruction i) {
        switch (i.type()) {
            case L0MODIFICATION:
                return i.type() + ":" + ((L0ModificationInstruction) i).subtype();
            case L1MODIFICATION:
                return i.type() + ":" + ((L1ModificationInstruction) i).subtype();
            case L2MODIFICATION:
                return i.type() + ":" + ((L2ModificationInstruction) i).subtype();
            case L3MODIFICATION:
                return i.type() + ":" + ((L3ModificationInstruction) i).subtype();
            case L4MODIFICATION:
                return i.type() + ":" + ((L4ModificationInstruction) i).subtype();
            default:
                return i.type().toString();
        }
    }

    private static boolean encoded(Instruction i) {
        switch (i.type()) {
            case L0MODIFICATION:
                return ENCODED_L0.contains(((L0ModificationInstruction) i).subtype());
            case L1MODIFICATION:
                return ENCODED_L1.contains(((L1ModificationInstruction) i).subtype());
            case L2MODIFICATION:
                return ENCODED_L2.contains(((L2ModificationInstruction) i).subtype());
            case L3MODIFICATION:
                return ENCODED_L3.contains(((L3ModificationInstruction) i).subtype());
            case L4MODIFICATION:
                return ENCODED_L4.contains(((L4ModificationInstruction) i).subtype());
            default:
                return ENCODED_INSTRUCTIONS.contains(i.type());
        }
    }

    /**
     * Returns the OpenFlow 1.3 prerequisites (spec 7.2.3.7, table 12) a
     * rule's match lacks, for the fields the steering may use. The provider
     * checks none of them: {@code buildMatch} encodes each criterion on its
     * own (IPV6_ND_TARGET as an exact IPv6 address, ICMPV6_TYPE as a U8), and
     * the switch refuses a flow-mod whose match field has no prerequisite
     * (OFPBMC_BAD_PREREQ): Open vSwitch for one.
     *
     * <ul>
     *   <li>ARP_SPA, ARP_TPA: ETH_TYPE 0x0806;</li>
     *   <li>IP_PROTO: ETH_TYPE 0x0800 or 0x86dd;</li>
     *   <li>IPV6_SRC, IPV6_DST: ETH_TYPE 0x86dd;</li>
     *   <li>ICMPV6_TYPE, ICMPV6_CODE: IP_PROTO 58 (and so ETH_TYPE 0x86dd);</li>
     *   <li>IPV6_ND_TARGET: ICMPV6_TYPE 135 or 136; IPV6_ND_SLL: 135; IPV6_ND_TLL: 136.</li>
     * </ul>
     *
     * @param rule a flow rule
     * @return one entry per field whose prerequisite is missing; empty when none
     */
    static List<String> missingPrerequisites(FlowRule rule) {
        TrafficSelector sel = rule.selector();
        Integer ethType = sel.getCriterion(Criterion.Type.ETH_TYPE) == null ? null
                : ((EthTypeCriterion) sel.getCriterion(Criterion.Type.ETH_TYPE)).ethType().toShort() & 0xffff;
        Integer proto = sel.getCriterion(Criterion.Type.IP_PROTO) == null ? null
                : (int) ((IPProtocolCriterion) sel.getCriterion(Criterion.Type.IP_PROTO)).protocol();
        Integer icmp6 = sel.getCriterion(Criterion.Type.ICMPV6_TYPE) == null ? null
                : ((Icmpv6TypeCriterion) sel.getCriterion(Criterion.Type.ICMPV6_TYPE)).icmpv6Type() & 0xff;
        boolean ipv6 = Integer.valueOf(ETH_IPV6).equals(ethType);
        boolean icmpv6 = ipv6 && Integer.valueOf(PROTO_ICMPV6).equals(proto);
        List<String> missing = new ArrayList<>();
        for (Criterion c : sel.criteria()) {
            switch (c.type()) {
                case ARP_SPA:
                case ARP_TPA:
                    require(missing, c, Integer.valueOf(ETH_ARP).equals(ethType), "ETH_TYPE 0x0806");
                    break;
                case IP_PROTO:
                    require(missing, c, ipv6 || Integer.valueOf(ETH_IPV4).equals(ethType),
                            "ETH_TYPE 0x0800 or 0x86dd");
                    break;
                case IPV6_SRC:
                case IPV6_DST:
                    require(missing, c, ipv6, "ETH_TYPE 0x86dd");
                    break;
                case ICMPV6_TYPE:
                case ICMPV6_CODE:
                    require(missing, c, icmpv6, "ETH_TYPE 0x86dd and IP_PROTO 58");
                    break;
                case IPV6_ND_TARGET:
                    require(missing, c, icmpv6 && icmp6 != null && (icmp6 == ND_SOLICIT || icmp6 == ND_ADVERT),
                            "ICMPV6_TYPE 135 or 136 (with ETH_TYPE 0x86dd, IP_PROTO 58)");
                    break;
                case IPV6_ND_SLL:
                    require(missing, c, icmpv6 && icmp6 != null && icmp6 == ND_SOLICIT,
                            "ICMPV6_TYPE 135 (with ETH_TYPE 0x86dd, IP_PROTO 58)");
                    break;
                case IPV6_ND_TLL:
                    require(missing, c, icmpv6 && icmp6 != null && icmp6 == ND_ADVERT,
                            "ICMPV6_TYPE 136 (with ETH_TYPE 0x86dd, IP_PROTO 58)");
                    break;
                default:
                    break;
            }
        }
        return missing;
    }

    private static final int ETH_IPV4 = 0x0800;
    private static final int ETH_ARP = 0x0806;
    private static final int ETH_IPV6 = 0x86dd;
    private static final int PROTO_ICMPV6 = 58;
    private static final int ND_SOLICIT = 135;
    private static final int ND_ADVERT = 136;

    private static void require(List<String> missing, Criterion c, boolean met, String what) {
        if (!met) {
            missing.add(c.type() + " needs " + what);
        }
    }

    /**
     * Returns the OpenFlow entry a rule becomes on the switch: its table,
     * priority and the match fields the provider encodes (what it drops is
     * not there). Two rules with the same entry overwrite each other on the
     * switch, and ONOS never sees both confirmed.
     *
     * @param rule a flow rule
     * @return a value equal for rules that are one switch entry
     */
    static Object entry(FlowRule rule) {
        ImmutableList.Builder<Object> key = ImmutableList.builder();
        key.add(rule.table(), rule.priority());
        rule.selector().criteria().stream().filter(c -> ENCODED_CRITERIA.contains(c.type()))
                .sorted((a, b) -> a.type().compareTo(b.type())).forEach(key::add);
        return key.build();
    }
}
