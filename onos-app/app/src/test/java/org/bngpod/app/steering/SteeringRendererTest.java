package org.bngpod.app.steering;

import org.junit.Test;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.driver.Driver;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

/**
 * Which renderer each of ONOS 2.5.6's own drivers gets: OF-DPA for every
 * driver whose pipeliner is (or extends) ONOS's Ofdpa2Pipeline, single table
 * for the others and for a driver ONOS does not know.
 */
public class SteeringRendererTest {

    @Test
    public void everyOnosDriverGetsTheRendererOfItsPipeliner() {
        Map<String, Pipeline> got = new TreeMap<>();
        OnosDrivers.all().forEach((name, driver) -> got.put(name, SteeringRenderer.forDriver(driver).pipeline()));
        for (String name : List.of("ofdpa", "ofdpa3", "qmx-ofdpa3", "znyx-ofdpa", "accton-ofdpa3", "delta-ofdpa3",
                                   "ofdpa-ovs", "as7712-32x-premium", "as5912-54x-premium", "as5916-54x-premium",
                                   "aos", "xpliant")) {
            assertEquals(name, Pipeline.OFDPA, got.get(name));
        }
        for (String name : List.of("default", "ovs", "lagopus", "liquidio", "onosfw", "softrouter", "noviflow",
                                   "pica", "Arista", "juniper", "ciscoof", "abstract")) {
            assertEquals(name, Pipeline.SINGLE_TABLE, got.get(name));
        }
        assertEquals("every driver of onos-drivers.xml is listed above", OnosDrivers.all().keySet(), got.keySet());
        assertEquals(24, got.size());
    }

    @Test
    public void theDefaultDriverIsOnosSingleTablePipeline() {
        // what a real ONOS 2.5.6 gave Open vSwitch 3.1 (FACTS.md): the default driver
        Driver driver = OnosDrivers.named("default");
        assertEquals("org.onosproject.driver.pipeline.DefaultSingleTablePipeline",
                     driver.implementation(Pipeliner.class).getName());
        assertSame(Pipeline.SINGLE_TABLE, SteeringRenderer.forDriver(driver));
    }

    @Test
    public void anUnknownDriverIsRenderedSingleTable() {
        assertSame(Pipeline.SINGLE_TABLE, SteeringRenderer.forDriver(null));
    }
}
