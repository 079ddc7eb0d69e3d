package org.bngpod.app.steering;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableSet;

import java.util.Objects;
import java.util.Set;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The fold rendered for one pipeline: for {@link Pipeline#SINGLE_TABLE} the
 * steers (one VERSATILE forwarding objective each), for
 * {@link Pipeline#OFDPA} the filtering, next and forwarding objectives of
 * {@link OfdpaSteering}. {@link SteeringInstaller#apply(org.onosproject.net.DeviceId, Steering)}
 * installs either.
 */
public final class Steering {

    private final Pipeline pipeline;
    private final Set<Steer> steers;
    private final OfdpaSteering ofdpa;

    private Steering(Pipeline pipeline, Set<Steer> steers, OfdpaSteering ofdpa) {
        this.pipeline = checkNotNull(pipeline, "pipeline");
        this.steers = ImmutableSet.copyOf(checkNotNull(steers, "steers"));
        this.ofdpa = checkNotNull(ofdpa, "ofdpa");
    }

    static Steering singleTable(Set<Steer> steers) {
        return new Steering(Pipeline.SINGLE_TABLE, steers, OfdpaSteering.EMPTY);
    }

    static Steering ofdpa(OfdpaSteering ofdpa) {
        return new Steering(Pipeline.OFDPA, Set.of(), ofdpa);
    }

    /**
     * Returns the pipeline the steering is rendered for.
     *
     * @return pipeline
     */
    public Pipeline pipeline() {
        return pipeline;
    }

    /**
     * Returns the single-table steers.
     *
     * @return steers; empty for OF-DPA
     */
    public Set<Steer> steers() {
        return steers;
    }

    /**
     * Returns the OF-DPA objectives.
     *
     * @return the OF-DPA steering; empty for a single table
     */
    public OfdpaSteering ofdpa() {
        return ofdpa;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Steering)) {
            return false;
        }
        Steering that = (Steering) obj;
        return pipeline == that.pipeline && steers.equals(that.steers) && ofdpa.equals(that.ofdpa);
    }

    @Override
    public int hashCode() {
        return Objects.hash(pipeline, steers, ofdpa);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("pipeline", pipeline).add("steers", steers.size())
                .add("ofdpa", ofdpa).toString();
    }
}
