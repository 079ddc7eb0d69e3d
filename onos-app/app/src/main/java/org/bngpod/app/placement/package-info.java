/**
 * Placement of line groups on DP instances: which instance serves which line
 * group, and why. Pure computation over the {@link org.bngpod.api.Pod} model;
 * the ONOS services that apply a placement (steering, failover) use it.
 */
package org.bngpod.app.placement;
