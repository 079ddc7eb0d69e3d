package org.bngpod.seba.impl;

import org.bngpod.api.AccessLine;
import org.bngpod.api.LineGroup;
import org.bngpod.api.Pod;
import org.bngpod.api.PortRole;
import org.bngpod.seba.api.LineSubscriber;
import org.bngpod.seba.api.Rates;
import org.onlab.packet.VlanId;
import org.onosproject.net.DeviceId;
import org.opencord.sadis.BandwidthProfileInformation;
import org.opencord.sadis.SubscriberAndDeviceInformation;
import org.opencord.sadis.UniTagInformation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Maps the SADIS services of the known UNIs onto the pod's access lines. Pure:
 * the SADIS look-ups are functions (SadisService's in the app), so the same
 * code runs in the tests. A UNI's OLT is cabled to an access port of the
 * switch (the {@code seba} netcfg's {@code olts}); a service's (ponSTag,
 * ponCTag) on that port must fall in an access line of a line group. What
 * cannot be mapped is reported, never invented.
 */
final class SubscriberMapper {

    /** RFC 4679: Agent-Circuit-Id and Agent-Remote-Id sub-options are at most 63 octets. */
    static final int MAX_AGENT_ID = 63;
    /** RADIUS: an attribute value is at most 253 octets (NAS-Port-Id). */
    static final int MAX_NAS_PORT_ID = 253;

    /** The result: subscribers by line key, and what could not be mapped. */
    static final class Mapping {
        final Map<String, LineSubscriber> byLine;
        final List<String> problems;

        Mapping(Map<String, LineSubscriber> byLine, List<String> problems) {
            this.byLine = byLine;
            this.problems = problems;
        }

        static Mapping empty() {
            return new Mapping(Map.of(), List.of());
        }
    }

    private SubscriberMapper() {
    }

    /** One UNI's SADIS services on the pod's lines, before lines taken twice are resolved. */
    static final class UniResult {
        final UniIndex.Uni uni;
        final List<LineSubscriber> services;
        final List<String> problems;

        UniResult(UniIndex.Uni uni, List<LineSubscriber> services, List<String> problems) {
            this.uni = uni;
            this.services = List.copyOf(services);
            this.problems = List.copyOf(problems);
        }
    }

    /**
     * Maps every UNI's SADIS services.
     *
     * @param pod          the running pod
     * @param oltPorts     OLT device to the access port its NNI is cabled to
     * @param unis         the UNIs the olt app announced
     * @param subscribers  SADIS subscriber look-up by UNI name (null: unknown)
     * @param profiles     SADIS bandwidth profile look-up by id (null: unknown)
     * @return the mapping
     */
    static Mapping map(Pod pod, Map<DeviceId, String> oltPorts, Collection<UniIndex.Uni> unis,
                       Function<String, SubscriberAndDeviceInformation> subscribers,
                       Function<String, BandwidthProfileInformation> profiles) {
        List<UniResult> results = new ArrayList<>();
        for (UniIndex.Uni uni : unis) {
            results.add(lookUp(pod, oltPorts, uni, subscribers, profiles));
        }
        return assemble(results);
    }

    /**
     * Puts per-UNI results together: ordered by UNI name (then connect point),
     * the first service on a line keeps it, later ones are reported. No I/O.
     *
     * @param results one per UNI
     * @return the mapping
     */
    static Mapping assemble(Collection<UniResult> results) {
        Map<String, LineSubscriber> byLine = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        List<UniResult> ordered = new ArrayList<>(results);
        ordered.sort(Comparator.comparing((UniResult r) -> r.uni.name)
                             .thenComparing(r -> r.uni.connectPoint.toString()));
        for (UniResult r : ordered) {
            problems.addAll(r.problems);
            for (LineSubscriber service : r.services) {
                LineSubscriber before = byLine.putIfAbsent(service.line(), service);
                if (before != null) {
                    problems.add("UNI " + r.uni + " service " + nameOf(service.serviceName()) + ": line "
                                         + service.line() + " is already UNI " + before.uniName() + " service "
                                         + nameOf(before.serviceName()) + "; not mapped");
                }
            }
        }
        return new Mapping(Map.copyOf(byLine), List.copyOf(problems));
    }

    /**
     * Looks one UNI up in SADIS and maps its services (may block on SADIS).
     *
     * @param pod         the running pod
     * @param oltPorts    OLT device to the access port its NNI is cabled to
     * @param uni         the UNI
     * @param subscribers SADIS subscriber look-up by UNI name (null: unknown)
     * @param profiles    SADIS bandwidth profile look-up by id (null: unknown)
     * @return the UNI's services and problems
     */
    static UniResult lookUp(Pod pod, Map<DeviceId, String> oltPorts, UniIndex.Uni uni,
                            Function<String, SubscriberAndDeviceInformation> subscribers,
                            Function<String, BandwidthProfileInformation> profiles) {
        List<LineSubscriber> mapped = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String accessPort = oltPorts.get(uni.olt());
        if (accessPort == null) {
            problems.add("UNI " + uni + ": OLT " + uni.olt() + " is cabled to no access port (seba netcfg olts)");
            return new UniResult(uni, mapped, problems);
        }
        if (pod.port(accessPort).map(p -> p.role() != PortRole.ACCESS).orElse(true)) {
            problems.add("UNI " + uni + ": " + accessPort + " is not an access port of the pod");
            return new UniResult(uni, mapped, problems);
        }
        SubscriberAndDeviceInformation info;
        try {
            info = subscribers.apply(uni.name);
        } catch (RuntimeException e) {
            problems.add("UNI " + uni + ": SADIS look-up failed: " + e.getMessage());
            return new UniResult(uni, mapped, problems);
        }
        if (info == null) {
            problems.add("UNI " + uni + ": unknown to SADIS");
            return new UniResult(uni, mapped, problems);
        }
        List<UniTagInformation> services = info.uniTagList();
        if (services == null || services.isEmpty()) {
            problems.add("UNI " + uni + ": SADIS entry has no uniTagList");
            return new UniResult(uni, mapped, problems);
        }
        String circuitId = identity(uni, "circuitId", info.circuitId(), MAX_AGENT_ID, problems);
        String remoteId = identity(uni, "remoteId", info.remoteId(), MAX_AGENT_ID, problems);
        String nasPortId = identity(uni, "nasPortId", info.nasPortId(), MAX_NAS_PORT_ID, problems);
        for (UniTagInformation service : services) {
            if (service == null) {
                problems.add("UNI " + uni + ": null service in uniTagList");
                continue;
            }
            String what = "UNI " + uni + " service " + nameOf(service.getServiceName());
            Optional<Integer> stag = tag(what, "ponSTag", service.getPonSTag(), problems);
            Optional<Integer> ctag = tag(what, "ponCTag", service.getPonCTag(), problems);
            if (stag.isEmpty() || ctag.isEmpty()) {
                continue;
            }
            Optional<LineGroup> group = groupOf(pod, accessPort, stag.get(), ctag.get());
            if (group.isEmpty()) {
                problems.add(what + ": S" + stag.get() + " C" + ctag.get() + " on access port " + accessPort
                                     + " is in no access line of the pod");
                continue;
            }
            Rates down = rates(what, "downstreamBandwidthProfile", service.getDownstreamBandwidthProfile(),
                               profiles, problems);
            Rates up = rates(what, "upstreamBandwidthProfile", service.getUpstreamBandwidthProfile(),
                             profiles, problems);
            mapped.add(new LineSubscriber(accessPort, stag.get(), ctag.get(), group.get().name(),
                                          uni.connectPoint, uni.name, nullToEmpty(service.getServiceName()),
                                          circuitId, remoteId, nasPortId, down, up));
        }
        return new UniResult(uni, mapped, problems);
    }

    private static Optional<LineGroup> groupOf(Pod pod, String accessPort, int stag, int ctag) {
        for (LineGroup group : pod.lineGroups()) {
            for (AccessLine line : group.lines()) {
                if (line.port().equals(accessPort) && line.matches(stag, ctag)) {
                    return Optional.of(group);
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Integer> tag(String what, String field, VlanId vlan, List<String> problems) {
        if (vlan == null) {
            problems.add(what + ": no " + field);
            return Optional.empty();
        }
        short id = vlan.toShort();
        if (id < 1 || id > 4094) {
            problems.add(what + ": " + field + " " + vlan + " is not a VLAN id of a line (1..4094)");
            return Optional.empty();
        }
        return Optional.of((int) id);
    }

    private static Rates rates(String what, String field, String id,
                               Function<String, BandwidthProfileInformation> profiles, List<String> problems) {
        if (id == null || id.isEmpty()) {
            return null;
        }
        BandwidthProfileInformation bp;
        try {
            bp = profiles.apply(id);
        } catch (RuntimeException e) {
            problems.add(what + ": " + field + " " + id + ": SADIS look-up failed: " + e.getMessage());
            return null;
        }
        if (bp == null) {
            problems.add(what + ": " + field + " " + id + " is unknown to SADIS");
            return null;
        }
        try {
            return BandwidthProfiles.rates(bp);
        } catch (IllegalArgumentException | ArithmeticException e) {
            problems.add(what + ": " + field + ": " + e.getMessage());
            return null;
        }
    }

    private static String identity(UniIndex.Uni uni, String field, String value, int max, List<String> problems) {
        if (value == null) {
            return "";
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > max) {
            problems.add("UNI " + uni + ": " + field + " is longer than " + max + " octets; left out");
            return "";
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                problems.add("UNI " + uni + ": " + field + " holds a control character; left out");
                return "";
            }
        }
        return value;
    }

    private static String nameOf(String name) {
        return name == null || name.isEmpty() ? "(unnamed)" : name;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
