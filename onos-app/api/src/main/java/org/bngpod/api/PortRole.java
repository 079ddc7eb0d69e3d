package org.bngpod.api;

import java.util.Locale;
import java.util.Optional;

/**
 * What a switch port connects to.
 */
public enum PortRole {
    /** An access network port: QinQ-tagged subscriber traffic. */
    ACCESS,
    /** The uplink towards the core router. */
    UPLINK,
    /** A port cabled to a server NIC that hosts DP instances. */
    SERVER;

    /**
     * Returns the name the configuration uses for the role, e.g. "access".
     *
     * @return lower-case name
     */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Returns the role a configuration name stands for.
     *
     * @param name lower-case role name ("access", "uplink" or "server")
     * @return the role, or empty if the name is none of them
     */
    public static Optional<PortRole> fromConfigName(String name) {
        for (PortRole role : values()) {
            if (role.configName().equals(name)) {
                return Optional.of(role);
            }
        }
        return Optional.empty();
    }
}
