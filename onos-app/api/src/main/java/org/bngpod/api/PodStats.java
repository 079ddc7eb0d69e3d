package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableSortedMap;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Pod figures for operators (GET /stats): sessions per instance and per line
 * group, line-group moves, failovers and the last one.
 */
public final class PodStats {

    private final long sessions;
    private final SortedMap<Integer, Long> sessionsPerInstance;
    private final SortedMap<String, Long> sessionsPerGroup;
    private final long placementVersion;
    private final long moves;
    private final Failover lastFailover;

    private PodStats(long sessions, Map<Integer, Long> perInstance, Map<String, Long> perGroup,
                     long placementVersion, long moves, Failover lastFailover) {
        this.sessions = sessions;
        this.sessionsPerInstance = ImmutableSortedMap.copyOf(checkNotNull(perInstance, "perInstance is null"));
        this.sessionsPerGroup = ImmutableSortedMap.copyOf(checkNotNull(perGroup, "perGroup is null"));
        this.placementVersion = placementVersion;
        this.moves = moves;
        this.lastFailover = lastFailover;
    }

    /**
     * Returns pod figures.
     *
     * @param sessions         sessions in the pod
     * @param perInstance      sessions per instance id
     * @param perGroup         sessions per line group
     * @param placementVersion placement version
     * @param moves            line-group moves
     * @param lastFailover     last failover, or null
     * @return the figures
     */
    public static PodStats of(long sessions, Map<Integer, Long> perInstance, Map<String, Long> perGroup,
                              long placementVersion, long moves, Failover lastFailover) {
        return new PodStats(sessions, perInstance, perGroup, placementVersion, moves, lastFailover);
    }

    /**
     * Returns the number of sessions.
     *
     * @return sessions
     */
    public long sessions() {
        return sessions;
    }

    /**
     * Returns the sessions per instance.
     *
     * @return instance id to count
     */
    public SortedMap<Integer, Long> sessionsPerInstance() {
        return sessionsPerInstance;
    }

    /**
     * Returns the sessions per line group.
     *
     * @return group name to count
     */
    public SortedMap<String, Long> sessionsPerGroup() {
        return sessionsPerGroup;
    }

    /**
     * Returns the placement version.
     *
     * @return version
     */
    public long placementVersion() {
        return placementVersion;
    }

    /**
     * Returns the line-group moves.
     *
     * @return moves
     */
    public long moves() {
        return moves;
    }

    /**
     * Returns the last failover.
     *
     * @return last failover, or empty
     */
    public Optional<Failover> lastFailover() {
        return Optional.ofNullable(lastFailover);
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof PodStats)) {
            return false;
        }
        PodStats that = (PodStats) obj;
        return sessions == that.sessions && placementVersion == that.placementVersion && moves == that.moves
                && sessionsPerInstance.equals(that.sessionsPerInstance)
                && sessionsPerGroup.equals(that.sessionsPerGroup) && Objects.equals(lastFailover, that.lastFailover);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessions, sessionsPerInstance, sessionsPerGroup, placementVersion, moves, lastFailover);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("sessions", sessions)
                .add("sessionsPerInstance", sessionsPerInstance).add("sessionsPerGroup", sessionsPerGroup)
                .add("placementVersion", placementVersion).add("moves", moves).add("lastFailover", lastFailover)
                .toString();
    }
}
