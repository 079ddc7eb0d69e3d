/**
 * Immutable model of a bngpod pod as the ONOS application sees it: the switch
 * and its ports, the servers and their SR-IOV VFs, the core uplink, the session
 * control plane, address pools, QoS profiles, line groups with their access
 * lines, and the data-plane instances that serve the line groups.
 *
 * <p>Objects refer to each other by name, as in the network configuration;
 * {@link org.bngpod.api.Pod} guarantees that every reference resolves and
 * offers the lookups.</p>
 */
package org.bngpod.api;
