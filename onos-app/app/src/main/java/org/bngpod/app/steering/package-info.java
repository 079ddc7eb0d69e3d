/**
 * Switch steering: the fold of the pod as ONOS flow objectives. A
 * {@link org.bngpod.app.steering.SteeringPlan} turns a pod and a placement into
 * {@link org.bngpod.app.steering.Steer}s (one VERSATILE forwarding objective
 * each); a {@link org.bngpod.app.steering.SteeringInstaller} installs the
 * difference on the switch. docs/onos/steering.md explains the rules.
 */
package org.bngpod.app.steering;
