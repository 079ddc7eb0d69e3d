package org.bngpod.app.steering;

import java.util.List;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * The pod needs steering the device's pipeline cannot express: the message
 * names every line (or VLAN) at fault and why.
 */
public final class UnsupportedPodException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** What is wrong, one entry per fault. */
    private final List<String> problems;

    /**
     * Creates the exception.
     *
     * @param message  the whole explanation
     * @param problems one line per fault
     */
    UnsupportedPodException(String message, List<String> problems) {
        super(message);
        this.problems = List.copyOf(checkNotNull(problems, "problems"));
    }

    /**
     * Returns the faults, one per entry.
     *
     * @return problems
     */
    public List<String> problems() {
        return problems;
    }
}
