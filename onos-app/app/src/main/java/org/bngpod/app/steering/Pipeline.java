package org.bngpod.app.steering;

import java.util.Locale;

/**
 * The switch pipeline the fold is rendered for: which flow objectives the
 * device's ONOS pipeliner takes.
 */
public enum Pipeline {
    /**
     * One table that takes any match and an output (ONOS's
     * {@code DefaultSingleTablePipeline}, Open vSwitch with the default
     * driver): one VERSATILE forwarding objective per steer.
     */
    SINGLE_TABLE,
    /**
     * Broadcom OF-DPA (ONOS's {@code Ofdpa2Pipeline}/{@code Ofdpa3Pipeline}):
     * filtering objectives admit (port, VLAN) into the VLAN table, next
     * objectives make L2 interface and flood groups, forwarding objectives
     * fill the bridging table (SPECIFIC) and the ACL table (VERSATILE).
     */
    OFDPA;

    /**
     * Returns the pipeline an ONOS driver renders: {@link #OFDPA} for every
     * driver whose name contains "ofdpa" (ofdpa, ofdpa3, qmx-ofdpa3,
     * ovs-ofdpa, ...), else {@link #SINGLE_TABLE}.
     *
     * @param driverName the device's driver name; null when unknown
     * @return the pipeline
     */
    public static Pipeline forDriver(String driverName) {
        if (driverName != null && driverName.toLowerCase(Locale.ROOT).contains("ofdpa")) {
            return OFDPA;
        }
        return SINGLE_TABLE;
    }
}
