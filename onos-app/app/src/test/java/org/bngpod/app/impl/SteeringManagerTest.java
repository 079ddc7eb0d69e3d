package org.bngpod.app.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.bngpod.app.steering.OfdpaSteering;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.onosproject.net.device.DeviceEvent;

import java.util.Set;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The steering manager: the switch re-sent everything when it reconnects,
 * the rendering its driver's pipeliner takes (single table or OF-DPA), a pod
 * OF-DPA cannot express left off the switch with the reason, and a driver
 * known only at connect. (The steering of each placement change is checked
 * with the placement in {@link PlacementManagerTest}.)
 */
public class SteeringManagerTest {

    private Testbed bed;

    @Before
    public void setUp() {
        bed = new Testbed(Testbed.fixturePod());
    }

    @After
    public void tearDown() {
        bed.close();
    }

    @Test
    public void switchReconnectResyncs() {
        bed.devices.device(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED);
        assertEquals(Set.of(1, 2), bed.steeredInstances());
    }

    /** The fixture pod with lg2's split S-tag line (S300, C2000-4094) serving the whole S-tag. */
    private static JsonNode wholeSTagPod() {
        ObjectNode pod = Testbed.fixturePod().deepCopy();
        for (JsonNode group : pod.get("lineGroups")) {
            for (JsonNode line : group.get("lines")) {
                ((ObjectNode) line).putNull("ctag");
            }
        }
        return pod;
    }

    @Test
    public void anOfdpaSwitchGetsTheOfdpaRendering() {
        bed.close();
        bed = new Testbed(wholeSTagPod(), "ofdpa3");
        OfdpaSteering ofdpa = bed.steering.installer().installedOfdpa(Testbed.SWITCH);
        assertFalse(ofdpa.forwards().isEmpty());
        assertFalse(ofdpa.filters().isEmpty());
        assertTrue(bed.steering.installer().installed(Testbed.SWITCH).isEmpty());
        assertNull(bed.steering.steeringProblem());
    }

    @Test
    public void aPodOfdpaCannotExpressIsNotSteeredAndTheReasonNamesTheLine() {
        bed.close();
        bed = new Testbed(Testbed.fixturePod(), "ofdpa3");
        assertTrue(bed.steering.installer().installedOfdpa(Testbed.SWITCH).forwards().isEmpty());
        assertTrue(bed.steering.installer().installed(Testbed.SWITCH).isEmpty());
        assertNotNull(bed.steering.steeringProblem());
        assertTrue(bed.steering.steeringProblem(), bed.steering.steeringProblem().contains("access3"));
    }

    @Test
    public void aSwitchWhoseDriverIsKnownOnlyAtConnectIsSteeredForIt() {
        bed.close();
        bed = new Testbed(wholeSTagPod(), null);
        assertEquals(Set.of(1, 2), bed.steeredInstances());
        bed.drivers.name = "ofdpa";
        bed.devices.device(DeviceEvent.Type.DEVICE_ADDED);
        assertTrue(bed.steering.installer().installed(Testbed.SWITCH).isEmpty());
        assertFalse(bed.steering.installer().installedOfdpa(Testbed.SWITCH).forwards().isEmpty());
    }

    @Test
    public void theRenderingFollowsThePipelinerNotTheDriverName() {
        // as7712-32x-premium's name says nothing of OF-DPA; its pipeliner is Ofdpa3Pipeline
        bed.close();
        bed = new Testbed(wholeSTagPod(), "as7712-32x-premium");
        assertFalse(bed.steering.installer().installedOfdpa(Testbed.SWITCH).forwards().isEmpty());
        assertTrue(bed.steering.installer().installed(Testbed.SWITCH).isEmpty());
    }
}
