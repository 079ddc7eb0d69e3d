package org.bngpod.app.steering;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flowobjective.Objective;
import org.onosproject.net.flowobjective.ObjectiveContext;
import org.onosproject.net.flowobjective.ObjectiveError;
import org.slf4j.Logger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the flow objective service answered to the objectives the installers
 * sent: successes and errors counted, each error logged. One is shared by
 * {@link SteeringInstaller} and its {@link OfdpaInstaller}, so the counts
 * cover both pipelines' objectives.
 */
final class ObjectiveOutcomes {

    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong successes = new AtomicLong();

    /**
     * Returns a context for one objective: counts its answer, logs an error.
     *
     * @param log    the installer's logger
     * @param label  what the log line says is steered ("steering", "OF-DPA steering")
     * @param device the switch
     * @param op     what the objective does
     * @param what   what the objective installs, for the log line
     * @return the context
     */
    ObjectiveContext context(Logger log, String label, DeviceId device, Objective.Operation op, Object what) {
        return new ObjectiveContext() {
            @Override
            public void onSuccess(Objective objective) {
                successes.incrementAndGet();
            }

            @Override
            public void onError(Objective objective, ObjectiveError error) {
                errors.incrementAndGet();
                log.warn("{} on {}: {} of {} failed: {}", label, device, op, what, error);
            }
        };
    }

    long errors() {
        return errors.get();
    }

    long successes() {
        return successes.get();
    }
}
