package org.bngpod.app;

import org.junit.Test;
import org.w3c.dom.Element;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

/**
 * The .oar as an operator installs it (built in {@code package}, so a
 * Failsafe test): what its app.xml makes ONOS activate first.
 */
public class OarIT {

    private static Path oar() throws Exception {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Paths.get("target"), "bngpod-onos-app-*.oar")) {
            dir.forEach(found::add);
        }
        assertEquals("one .oar in target/: " + found, 1, found.size());
        return found.get(0);
    }

    /**
     * Only the bare OpenFlow stack and the drivers: org.onosproject.openflow
     * would bring the host provider, whose {@code arp -> CONTROLLER} at
     * priority 40000 took every ARP frame before the app's steering, and the
     * LLDP provider, which the app does not need either.
     */
    @Test
    public void theAppRequiresTheBareOpenFlowStackAndTheDrivers() throws Exception {
        try (ZipFile zip = new ZipFile(oar().toFile())) {
            ZipEntry entry = zip.getEntry("app.xml");
            assertNotNull("app.xml at the root of the .oar", entry);
            try (InputStream in = zip.getInputStream(entry)) {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                Element app = factory.newDocumentBuilder().parse(in).getDocumentElement();
                assertEquals("org.bngpod.app", app.getAttribute("name"));
                assertEquals("org.onosproject.openflow-base,org.onosproject.drivers", app.getAttribute("apps"));
            }
        }
    }
}
