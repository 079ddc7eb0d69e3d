package org.bngpod.seba.api;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * SADIS subscribers mapped onto the pod's access lines. The pod stays
 * authoritative for lines and line groups: a SADIS service whose tags fall in
 * no line is reported ({@link #problems()}), never added.
 */
public interface SebaSubscriberService {

    /**
     * Returns the subscriber service on one access line.
     *
     * @param accessPort access port of the switch
     * @param stag       S-tag
     * @param ctag       C-tag
     * @return the mapped service, or empty
     */
    Optional<LineSubscriber> subscriber(String accessPort, int stag, int ctag);

    /**
     * Returns every mapped subscriber service.
     *
     * @return services, ordered by line
     */
    Collection<LineSubscriber> subscribers();

    /**
     * Returns what the last mapping could not map, one sentence each (a UNI
     * SADIS does not know, a service outside every line, an unknown bandwidth
     * profile, an OLT cabled to no access port, ...).
     *
     * @return problems, in the order found
     */
    List<String> problems();

    /**
     * Returns the version of the last teardown request (0: none yet).
     *
     * @return the latest version
     */
    default long teardownVersion() {
        return 0;
    }

    /**
     * Returns the teardown requests after a version, oldest first.
     *
     * @param after the last version the reader has seen (0: from the start)
     * @return requests with a higher version
     */
    default List<TeardownRequest> teardownsAfter(long after) {
        return List.of();
    }
}
