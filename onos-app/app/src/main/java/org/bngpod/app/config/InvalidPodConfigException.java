package org.bngpod.app.config;

import org.onosproject.net.config.InvalidFieldException;

/**
 * The pod configuration is invalid at a field. The message names the field by
 * its path from the pod object, e.g.
 * {@code lineGroups[1].lines[0].stag.max: 5000 is not a VLAN id (1..4094)}.
 *
 * <p>It is an ONOS {@link InvalidFieldException} whose {@link #field()} is
 * the path, so ONOS's network configuration service reports it as it reports
 * its own field errors.</p>
 */
public final class InvalidPodConfigException extends InvalidFieldException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param path   path of the field from the pod object; empty for the pod
     *               object itself
     * @param reason what is wrong with the field
     */
    public InvalidPodConfigException(String path, String reason) {
        super(path, reason);
    }

    /**
     * Returns the path of the field from the pod object, e.g.
     * {@code instances[0].mac}; empty for the pod object itself.
     *
     * @return field path
     */
    public String path() {
        return field();
    }

    /**
     * Returns "path: reason", or the reason alone for the pod object itself.
     *
     * @return message
     */
    @Override
    public String getMessage() {
        return field().isEmpty() ? reason() : field() + ": " + reason();
    }
}
