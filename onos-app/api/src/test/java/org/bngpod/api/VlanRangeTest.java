package org.bngpod.api;

import com.google.common.testing.EqualsTester;
import org.junit.Test;
import org.onlab.packet.VlanId;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.onlab.junit.ImmutableClassChecker.assertThatClassIsImmutable;

/**
 * Tests of {@link VlanRange}.
 */
public class VlanRangeTest {

    @Test
    public void immutable() {
        assertThatClassIsImmutable(VlanRange.class);
    }

    @Test
    public void bounds() {
        VlanRange range = VlanRange.of(100, 149);
        assertEquals(100, range.min());
        assertEquals(149, range.max());
        assertEquals(50, range.size());
        assertEquals(VlanRange.of(1, 4094), VlanRange.ALL);
        assertEquals(4094, VlanRange.ALL.size());
        assertEquals(VlanRange.of(300, 300), VlanRange.single(300));
        assertEquals(1, VlanRange.single(300).size());
    }

    @Test
    public void rejectsIdsOutsideOneTo4094() {
        assertMessage("0 is not a VLAN id (1..4094)", () -> VlanRange.of(0, 10));
        assertMessage("4095 is not a VLAN id (1..4094)", () -> VlanRange.of(1, 4095));
        assertMessage("-1 is not a VLAN id (1..4094)", () -> VlanRange.single(-1));
        assertMessage("5000 is not a VLAN id (1..4094)", () -> VlanRange.single(5000));
        assertTrue(VlanRange.isVlanId(1));
        assertTrue(VlanRange.isVlanId(4094));
        assertFalse(VlanRange.isVlanId(0));
        assertFalse(VlanRange.isVlanId(4095));
    }

    @Test
    public void rejectsMinAboveMax() {
        assertMessage("min 149 > max 100", () -> VlanRange.of(149, 100));
    }

    @Test
    public void containsId() {
        VlanRange range = VlanRange.of(100, 149);
        assertFalse(range.contains(99));
        assertTrue(range.contains(100));
        assertTrue(range.contains(120));
        assertTrue(range.contains(149));
        assertFalse(range.contains(150));
        assertTrue(range.contains(VlanId.vlanId((short) 120)));
        assertFalse(range.contains(VlanId.vlanId((short) 150)));
        assertFalse(VlanRange.ALL.contains(VlanId.NONE));
        assertFalse(VlanRange.ALL.contains(VlanId.ANY));
    }

    @Test
    public void containsRange() {
        VlanRange range = VlanRange.of(100, 149);
        assertTrue(range.contains(range));
        assertTrue(range.contains(VlanRange.of(100, 100)));
        assertTrue(range.contains(VlanRange.of(110, 149)));
        assertFalse(range.contains(VlanRange.of(99, 120)));
        assertFalse(range.contains(VlanRange.of(140, 150)));
        assertTrue(VlanRange.ALL.contains(range));
        assertFalse(range.contains(VlanRange.ALL));
    }

    @Test
    public void overlaps() {
        VlanRange range = VlanRange.of(100, 149);
        assertTrue(range.overlaps(range));
        assertTrue(range.overlaps(VlanRange.of(149, 200)));
        assertTrue(range.overlaps(VlanRange.of(1, 100)));
        assertTrue(range.overlaps(VlanRange.of(120, 121)));
        assertTrue(range.overlaps(VlanRange.ALL));
        assertFalse(range.overlaps(VlanRange.of(150, 159)));
        assertFalse(range.overlaps(VlanRange.of(1, 99)));
        // Symmetric.
        assertTrue(VlanRange.of(149, 200).overlaps(range));
        assertFalse(VlanRange.of(150, 159).overlaps(range));
    }

    @Test
    public void textForm() {
        assertEquals("100-149", VlanRange.of(100, 149).toString());
        assertEquals("300-300", VlanRange.single(300).toString());
        assertEquals(VlanRange.of(100, 149), VlanRange.valueOf("100-149"));
        assertEquals(VlanRange.single(300), VlanRange.valueOf("300"));
        assertEquals(VlanRange.ALL, VlanRange.valueOf(VlanRange.ALL.toString()));
        assertMessage("\"abc\" is not a VLAN range (min-max)", () -> VlanRange.valueOf("abc"));
        assertMessage("\"5-\" is not a VLAN range (min-max)", () -> VlanRange.valueOf("5-"));
        assertMessage("\"-5\" is not a VLAN range (min-max)", () -> VlanRange.valueOf("-5"));
        assertMessage("min 20 > max 10", () -> VlanRange.valueOf("20-10"));
        assertMessage("4095 is not a VLAN id (1..4094)", () -> VlanRange.valueOf("1-4095"));
    }

    @Test
    public void equality() {
        new EqualsTester()
                .addEqualityGroup(VlanRange.of(100, 149), VlanRange.of(100, 149), VlanRange.valueOf("100-149"))
                .addEqualityGroup(VlanRange.of(100, 150))
                .addEqualityGroup(VlanRange.of(101, 149))
                .addEqualityGroup(VlanRange.single(100))
                .testEquals();
    }

    private static void assertMessage(String message, Runnable runnable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, runnable::run);
        assertThat(e.getMessage(), is(message));
    }
}
