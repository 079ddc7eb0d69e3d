package org.bngpod.api;

import com.google.common.base.MoreObjects;

import java.util.Objects;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The subscriber lines a line group takes on one access port: a range of
 * S-tags and, optionally, a range of C-tags within them. Without a C-tag range
 * the line takes every C-tag of its S-tags.
 */
public final class AccessLine {

    private final String port;
    private final VlanRange stag;
    private final VlanRange ctag;

    private AccessLine(String port, VlanRange stag, VlanRange ctag) {
        this.port = Checks.name(port, "access port");
        this.stag = checkNotNull(stag, "line on %s: stag is null", port);
        this.ctag = ctag;
    }

    /**
     * Returns a line that takes every C-tag of its S-tags.
     *
     * @param port access port name
     * @param stag S-tag range
     * @return the line
     */
    public static AccessLine of(String port, VlanRange stag) {
        return new AccessLine(port, stag, null);
    }

    /**
     * Returns a line.
     *
     * @param port access port name
     * @param stag S-tag range
     * @param ctag C-tag range, or null for every C-tag
     * @return the line
     */
    public static AccessLine of(String port, VlanRange stag, VlanRange ctag) {
        return new AccessLine(port, stag, ctag);
    }

    /**
     * Returns the name of the access port.
     *
     * @return port name
     */
    public String port() {
        return port;
    }

    /**
     * Returns the S-tag range.
     *
     * @return S-tags
     */
    public VlanRange stag() {
        return stag;
    }

    /**
     * Returns the C-tag range.
     *
     * @return C-tags, or empty for every C-tag
     */
    public Optional<VlanRange> ctag() {
        return Optional.ofNullable(ctag);
    }

    /**
     * Tells whether a double-tagged frame on the line's port belongs to the line.
     *
     * @param sVlan outer VLAN id
     * @param cVlan inner VLAN id
     * @return true if it does
     */
    public boolean matches(int sVlan, int cVlan) {
        return stag.contains(sVlan) && (ctag == null ? VlanRange.isVlanId(cVlan) : ctag.contains(cVlan));
    }

    /**
     * Tells whether the line shares a (S-tag, C-tag) pair with another line on
     * the same port.
     *
     * @param other other line
     * @return true if the lines overlap
     */
    public boolean overlaps(AccessLine other) {
        checkNotNull(other, "other is null");
        return port.equals(other.port) && stag.overlaps(other.stag)
                && (ctag == null || other.ctag == null || ctag.overlaps(other.ctag));
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof AccessLine)) {
            return false;
        }
        AccessLine that = (AccessLine) obj;
        return port.equals(that.port) && stag.equals(that.stag) && Objects.equals(ctag, that.ctag);
    }

    @Override
    public int hashCode() {
        return Objects.hash(port, stag, ctag);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("port", port).add("stag", stag).add("ctag", ctag == null ? "any" : ctag).toString();
    }
}
