package org.bngpod.api;

import com.google.common.base.MoreObjects;
import org.onlab.packet.Ip4Address;
import org.onlab.packet.MacAddress;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A subscriber session as a control plane reported it (Contract B's Session
 * object): where it lives (line group, DP instance), who it is, its address,
 * profile, rates and usage; and the traffic rate ONOS measured between its
 * last two usage readings.
 *
 * <p>Value object; the start time is kept as seconds and nanoseconds so that
 * the distributed store's serializer needs no java.time support.</p>
 */
public final class Session {

    /** Longest session id accepted (RADIUS Acct-Session-Id is at most 253 octets). */
    public static final int MAX_ID_LENGTH = 253;
    /** Longest user name accepted (a RADIUS attribute's value). */
    public static final int MAX_USERNAME_LENGTH = 253;
    /** Longest control plane name accepted. */
    public static final int MAX_CP_LENGTH = 63;

    private final String id;
    private final String cp;
    private final String lineGroup;
    private final int instance;
    private final String accessPort;
    private final int stag;
    private final int ctag;
    private final int pppoeId;
    private final MacAddress mac;
    private final Ip4Address ipv4;
    private final String username;
    private final String qosProfile;
    private final long downRate;
    private final long upRate;
    private final long sinceSeconds;
    private final int sinceNanos;
    private final Usage usage;
    private final Throughput throughput;
    private final String cause;

    private Session(Builder b) {
        checkNotNull(b.id, "id is null");
        checkArgument(!b.id.isEmpty() && b.id.length() <= MAX_ID_LENGTH,
                      "id must have 1..%s characters", MAX_ID_LENGTH);
        this.id = b.id;
        checkNotNull(b.cp, "cp is null");
        checkArgument(!b.cp.isEmpty() && b.cp.length() <= MAX_CP_LENGTH,
                      "cp must have 1..%s characters", MAX_CP_LENGTH);
        this.cp = b.cp;
        this.lineGroup = Checks.name(b.lineGroup, "line group");
        this.instance = Checks.inRange(b.instance, 1, DpInstance.MAX_ID, "instance");
        this.accessPort = Checks.name(b.accessPort, "access port");
        checkArgument(VlanRange.isVlanId(b.stag), "stag %s is not a VLAN id (1..4094)", b.stag);
        checkArgument(VlanRange.isVlanId(b.ctag), "ctag %s is not a VLAN id (1..4094)", b.ctag);
        this.stag = b.stag;
        this.ctag = b.ctag;
        this.pppoeId = Checks.inRange(b.pppoeId, 0, 0xffff, "pppoeId");
        this.mac = checkNotNull(b.mac, "mac is null");
        this.ipv4 = b.ipv4;
        this.username = b.username == null ? "" : b.username;
        checkArgument(username.length() <= MAX_USERNAME_LENGTH, "username is longer than %s characters",
                      MAX_USERNAME_LENGTH);
        this.qosProfile = b.qosProfile == null ? null : Checks.name(b.qosProfile, "QoS profile");
        checkArgument(b.downRate >= 0 && b.upRate >= 0, "rates must not be negative");
        this.downRate = b.downRate;
        this.upRate = b.upRate;
        Instant since = checkNotNull(b.since, "since is null");
        this.sinceSeconds = since.getEpochSecond();
        this.sinceNanos = since.getNano();
        this.usage = checkNotNull(b.usage, "usage is null");
        this.throughput = b.throughput;
        this.cause = b.cause;
    }

    /**
     * Returns a builder; username defaults to "", rates to the profile's
     * (0), usage to zero, throughput to none.
     *
     * @return new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder holding this session's values.
     *
     * @return builder
     */
    public Builder toBuilder() {
        return new Builder().id(id).cp(cp).lineGroup(lineGroup).instance(instance).accessPort(accessPort)
                .stag(stag).ctag(ctag).pppoeId(pppoeId).mac(mac).ipv4(ipv4).username(username)
                .qosProfile(qosProfile).downRate(downRate).upRate(upRate).since(since()).usage(usage)
                .throughput(throughput).cause(cause);
    }

    /**
     * Returns the session id (the control plane's Acct-Session-Id).
     *
     * @return id
     */
    public String id() {
        return id;
    }

    /**
     * Returns the name of the control plane that reported the session.
     *
     * @return control plane name
     */
    public String cp() {
        return cp;
    }

    /**
     * Returns the line group of the subscriber's line.
     *
     * @return line group name
     */
    public String lineGroup() {
        return lineGroup;
    }

    /**
     * Returns the id of the DP instance the session is installed in.
     *
     * @return instance id
     */
    public int instance() {
        return instance;
    }

    /**
     * Returns the access port of the subscriber's line.
     *
     * @return access port name
     */
    public String accessPort() {
        return accessPort;
    }

    /**
     * Returns the line's S-tag.
     *
     * @return S-tag
     */
    public int stag() {
        return stag;
    }

    /**
     * Returns the line's C-tag.
     *
     * @return C-tag
     */
    public int ctag() {
        return ctag;
    }

    /**
     * Returns the PPPoE session id (0 for a session without PPPoE).
     *
     * @return PPPoE session id
     */
    public int pppoeId() {
        return pppoeId;
    }

    /**
     * Returns the CPE's MAC address.
     *
     * @return MAC address
     */
    public MacAddress mac() {
        return mac;
    }

    /**
     * Returns the subscriber's IPv4 address.
     *
     * @return address, or empty while none is assigned
     */
    public Optional<Ip4Address> ipv4() {
        return Optional.ofNullable(ipv4);
    }

    /**
     * Returns the user name.
     *
     * @return user name, "" if none
     */
    public String username() {
        return username;
    }

    /**
     * Returns the QoS profile name.
     *
     * @return profile name, or empty if the control plane did not say
     */
    public Optional<String> qosProfile() {
        return Optional.ofNullable(qosProfile);
    }

    /**
     * Returns the downstream rate the control plane gave the session itself
     * (RADIUS or CoA), in place of its QoS profile's.
     *
     * @return bit/s, 0 when the profile's rate applies
     */
    public long downRate() {
        return downRate;
    }

    /**
     * Returns the upstream rate (policer peak) the control plane gave the
     * session itself (RADIUS or CoA), in place of its QoS profile's.
     *
     * @return bit/s, 0 when the profile's rate applies
     */
    public long upRate() {
        return upRate;
    }

    /**
     * Returns when the session came up.
     *
     * @return start time
     */
    public Instant since() {
        return Instant.ofEpochSecond(sinceSeconds, sinceNanos);
    }

    /**
     * Returns the last reported usage.
     *
     * @return usage totals
     */
    public Usage usage() {
        return usage;
    }

    /**
     * Returns the traffic rate between the session's last two usage readings
     * (ONOS measures it when a report brings a newer reading).
     *
     * @return the rate, or empty before two timed readings arrived
     */
    public Optional<Throughput> throughput() {
        return Optional.ofNullable(throughput);
    }

    /**
     * Returns the terminate cause of a session that went down.
     *
     * @return Acct-Terminate-Cause name, or empty
     */
    public Optional<String> cause() {
        return Optional.ofNullable(cause);
    }

    /**
     * Returns the subscriber of the session.
     *
     * @return subscriber
     */
    public Subscriber subscriber() {
        return Subscriber.of(username, accessPort, stag, ctag, mac);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Session)) {
            return false;
        }
        Session that = (Session) obj;
        return instance == that.instance && stag == that.stag && ctag == that.ctag && pppoeId == that.pppoeId
                && sinceSeconds == that.sinceSeconds && sinceNanos == that.sinceNanos && id.equals(that.id)
                && cp.equals(that.cp) && lineGroup.equals(that.lineGroup) && accessPort.equals(that.accessPort)
                && mac.equals(that.mac) && Objects.equals(ipv4, that.ipv4) && username.equals(that.username)
                && Objects.equals(qosProfile, that.qosProfile) && downRate == that.downRate
                && upRate == that.upRate && usage.equals(that.usage) && Objects.equals(throughput, that.throughput)
                && Objects.equals(cause, that.cause);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, cp, lineGroup, instance, accessPort, stag, ctag, pppoeId, mac, ipv4, username,
                            qosProfile, downRate, upRate, sinceSeconds, sinceNanos, usage, throughput, cause);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).omitNullValues()
                .add("id", id).add("cp", cp).add("lineGroup", lineGroup).add("instance", instance)
                .add("line", accessPort + "/" + stag + "/" + ctag).add("pppoeId", pppoeId).add("mac", mac)
                .add("ipv4", ipv4).add("username", username).add("qosProfile", qosProfile)
                .add("downRate", downRate == 0 ? null : downRate).add("upRate", upRate == 0 ? null : upRate)
                .add("since", since()).add("usage", usage).add("throughput", throughput).add("cause", cause)
                .toString();
    }

    /**
     * Builds a {@link Session}.
     */
    public static final class Builder {
        private String id;
        private String cp;
        private String lineGroup;
        private int instance;
        private String accessPort;
        private int stag;
        private int ctag;
        private int pppoeId;
        private MacAddress mac;
        private Ip4Address ipv4;
        private String username = "";
        private String qosProfile;
        private long downRate;
        private long upRate;
        private Instant since;
        private Usage usage = Usage.ZERO;
        private Throughput throughput;
        private String cause;

        private Builder() {
        }

        /**
         * Sets the session id.
         *
         * @param id Acct-Session-Id
         * @return this builder
         */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        /**
         * Sets the reporting control plane.
         *
         * @param cp control plane name
         * @return this builder
         */
        public Builder cp(String cp) {
            this.cp = cp;
            return this;
        }

        /**
         * Sets the line group.
         *
         * @param lineGroup line group name
         * @return this builder
         */
        public Builder lineGroup(String lineGroup) {
            this.lineGroup = lineGroup;
            return this;
        }

        /**
         * Sets the DP instance.
         *
         * @param instance instance id
         * @return this builder
         */
        public Builder instance(int instance) {
            this.instance = instance;
            return this;
        }

        /**
         * Sets the access port.
         *
         * @param accessPort access port name
         * @return this builder
         */
        public Builder accessPort(String accessPort) {
            this.accessPort = accessPort;
            return this;
        }

        /**
         * Sets the S-tag.
         *
         * @param stag S-tag
         * @return this builder
         */
        public Builder stag(int stag) {
            this.stag = stag;
            return this;
        }

        /**
         * Sets the C-tag.
         *
         * @param ctag C-tag
         * @return this builder
         */
        public Builder ctag(int ctag) {
            this.ctag = ctag;
            return this;
        }

        /**
         * Sets the PPPoE session id.
         *
         * @param pppoeId PPPoE session id, 0..65535
         * @return this builder
         */
        public Builder pppoeId(int pppoeId) {
            this.pppoeId = pppoeId;
            return this;
        }

        /**
         * Sets the CPE MAC address.
         *
         * @param mac MAC address
         * @return this builder
         */
        public Builder mac(MacAddress mac) {
            this.mac = mac;
            return this;
        }

        /**
         * Sets the IPv4 address.
         *
         * @param ipv4 address, or null
         * @return this builder
         */
        public Builder ipv4(Ip4Address ipv4) {
            this.ipv4 = ipv4;
            return this;
        }

        /**
         * Sets the user name.
         *
         * @param username user name, null for none
         * @return this builder
         */
        public Builder username(String username) {
            this.username = username;
            return this;
        }

        /**
         * Sets the QoS profile.
         *
         * @param qosProfile profile name, or null
         * @return this builder
         */
        public Builder qosProfile(String qosProfile) {
            this.qosProfile = qosProfile;
            return this;
        }

        /**
         * Sets the downstream rate of the session's own (RADIUS, CoA).
         *
         * @param downRate bit/s, 0 for the QoS profile's
         * @return this builder
         */
        public Builder downRate(long downRate) {
            this.downRate = downRate;
            return this;
        }

        /**
         * Sets the upstream rate of the session's own (RADIUS, CoA).
         *
         * @param upRate bit/s, 0 for the QoS profile's
         * @return this builder
         */
        public Builder upRate(long upRate) {
            this.upRate = upRate;
            return this;
        }

        /**
         * Sets the start time.
         *
         * @param since start time
         * @return this builder
         */
        public Builder since(Instant since) {
            this.since = since;
            return this;
        }

        /**
         * Sets the usage.
         *
         * @param usage usage totals
         * @return this builder
         */
        public Builder usage(Usage usage) {
            this.usage = usage;
            return this;
        }

        /**
         * Sets the measured traffic rate.
         *
         * @param throughput rate between the last two usage readings, or null
         * @return this builder
         */
        public Builder throughput(Throughput throughput) {
            this.throughput = throughput;
            return this;
        }

        /**
         * Sets the terminate cause.
         *
         * @param cause Acct-Terminate-Cause name, or null
         * @return this builder
         */
        public Builder cause(String cause) {
            this.cause = cause;
            return this;
        }

        /**
         * Builds the session.
         *
         * @return the session
         * @throws NullPointerException     if a required value is missing
         * @throws IllegalArgumentException if a value is invalid
         */
        public Session build() {
            return new Session(this);
        }
    }
}
