package org.bngpod.seba.impl;

import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OLT UNIs known from the olt app (UNI_ADDED, UNI_REMOVED and its
 * programmed subscribers): connect point to port name. SADIS is keyed by UNI
 * name only, so this is where a UNI's name comes from.
 */
final class UniIndex {

    /** A UNI: where it is and its name (its SADIS id). */
    static final class Uni {
        final ConnectPoint connectPoint;
        final String name;

        Uni(ConnectPoint connectPoint, String name) {
            this.connectPoint = Objects.requireNonNull(connectPoint);
            this.name = Objects.requireNonNull(name);
        }

        DeviceId olt() {
            return connectPoint.deviceId();
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Uni && ((Uni) obj).connectPoint.equals(connectPoint)
                    && ((Uni) obj).name.equals(name);
        }

        @Override
        public int hashCode() {
            return Objects.hash(connectPoint, name);
        }

        @Override
        public String toString() {
            return name + "@" + connectPoint;
        }
    }

    private final Map<ConnectPoint, Uni> unis = new ConcurrentHashMap<>();

    /**
     * Records a UNI.
     *
     * @param connectPoint where
     * @param name         port name; blank names are ignored (SADIS cannot be asked for them)
     * @return true if the index changed
     */
    boolean add(ConnectPoint connectPoint, String name) {
        if (name == null || name.isBlank()) {
            return false;
        }
        Uni uni = new Uni(connectPoint, name);
        return !uni.equals(unis.put(connectPoint, uni));
    }

    /**
     * Forgets a UNI.
     *
     * @param connectPoint where
     * @return true if it was known
     */
    boolean remove(ConnectPoint connectPoint) {
        return unis.remove(connectPoint) != null;
    }

    /**
     * Returns the UNI at a connect point.
     *
     * @param connectPoint where
     * @return the UNI, or empty
     */
    Optional<Uni> at(ConnectPoint connectPoint) {
        return Optional.ofNullable(unis.get(connectPoint));
    }

    /**
     * Returns every UNI.
     *
     * @return a snapshot
     */
    Map<ConnectPoint, Uni> snapshot() {
        return Map.copyOf(unis);
    }
}
