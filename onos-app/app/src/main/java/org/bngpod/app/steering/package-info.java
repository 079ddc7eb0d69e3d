/**
 * Switch steering: the fold of the pod as ONOS flow objectives. A
 * {@link org.bngpod.app.steering.SteeringPlan} turns a pod and a placement into
 * {@link org.bngpod.app.steering.Steer}s (one VERSATILE forwarding objective
 * each); a {@link org.bngpod.app.steering.SteeringInstaller} installs the
 * difference on the switch. For OF-DPA whiteboxes
 * ({@link org.bngpod.app.steering.Pipeline#OFDPA}) the same fold is rendered as
 * a VLAN bridge ({@link org.bngpod.app.steering.OfdpaSteering}: filtering, next
 * and forwarding objectives). docs/onos/steering.md explains the rules.
 */
package org.bngpod.app.steering;
