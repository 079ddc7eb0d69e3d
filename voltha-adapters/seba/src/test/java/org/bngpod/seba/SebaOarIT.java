package org.bngpod.seba;

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
import java.util.jar.Attributes;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

/**
 * The second .oar, org.bngpod.seba, as an operator installs it: what ONOS
 * activates first, and a bundle Karaf can resolve in a SEBA ONOS.
 */
public class SebaOarIT {

    private static final String VERSION_DIR = "m2/org/bngpod/bngpod-seba/";

    private static Path oar() throws Exception {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Paths.get("target"), "bngpod-seba-*.oar")) {
            dir.forEach(found::add);
        }
        assertEquals("one .oar in target/: " + found, 1, found.size());
        return found.get(0);
    }

    /** bngpod's app and SEBA's sadis and olt apps, by the names SEBA's charts activate. */
    @Test
    public void theAppRequiresBngpodSadisAndOlt() throws Exception {
        try (ZipFile zip = new ZipFile(oar().toFile())) {
            ZipEntry entry = zip.getEntry("app.xml");
            assertNotNull("app.xml at the root of the .oar", entry);
            try (InputStream in = zip.getInputStream(entry)) {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                Element app = factory.newDocumentBuilder().parse(in).getDocumentElement();
                assertEquals("org.bngpod.seba", app.getAttribute("name"));
                assertEquals("org.bngpod.app,org.opencord.sadis,org.opencord.olt", app.getAttribute("apps"));
                assertEquals("bngpod-seba", app.getAttribute("features"));
            }
        }
    }

    /**
     * The bundle: its name, the exported API, its five components, kafka-clients
     * embedded, and every required import one that ONOS with SEBA's apps
     * exports (what kafka-clients may use beyond that is optional).
     */
    @Test
    public void theBundleResolvesInSebasOnos() throws Exception {
        try (ZipFile zip = new ZipFile(oar().toFile())) {
            ZipEntry jar = zip.stream().filter(e -> e.getName().startsWith(VERSION_DIR) && e.getName().endsWith(".jar"))
                    .findFirst().orElseThrow();
            assertNotNull(zip.stream().filter(e -> e.getName().endsWith("-features.xml")).findFirst().orElse(null));
            Manifest mf;
            try (JarInputStream in = new JarInputStream(zip.getInputStream(jar))) {
                mf = in.getManifest();
            }
            Attributes a = mf.getMainAttributes();
            assertEquals("org.bngpod.seba", a.getValue("Bundle-SymbolicName"));
            assertTrue(a.getValue("Export-Package"), a.getValue("Export-Package").startsWith("org.bngpod.seba.api;"));
            assertEquals("WEB-INF/classes,WEB-INF/lib/kafka-clients-3.9.1.jar", a.getValue("Bundle-ClassPath"));
            assertEquals("/onos/bngpod-seba", a.getValue("Web-ContextPath"));
            List<String> components = splitClauses(a.getValue("Service-Component")).stream()
                    .map(String::trim).sorted().collect(Collectors.toList());
            assertEquals(List.of("OSGI-INF/org.bngpod.seba.impl.BngStatsProvider.xml",
                                 "OSGI-INF/org.bngpod.seba.impl.KafkaOssPublisher.xml",
                                 "OSGI-INF/org.bngpod.seba.impl.PppoeEventProvider.xml",
                                 "OSGI-INF/org.bngpod.seba.impl.SebaManager.xml"), components);
            List<String> required = new ArrayList<>();
            for (String imp : splitClauses(a.getValue("Import-Package"))) {
                if (!imp.contains("resolution:=optional")) {
                    int semi = imp.indexOf(';');
                    required.add(semi < 0 ? imp : imp.substring(0, semi));
                }
            }
            List<String> allowed = List.of("org.bngpod.api", "org.bngpod.seba.api", "org.onosproject.", "org.onlab.",
                                           "org.opencord.sadis", "org.opencord.olt", "org.opencord.bng",
                                           "com.fasterxml.jackson.", "com.google.common.", "org.slf4j",
                                           "javax.ws.rs", "org.glassfish.jersey.servlet");
            for (String pkg : required) {
                assertTrue("required import " + pkg + " in " + required,
                           allowed.stream().anyMatch(pkg::startsWith));
            }
            assertTrue(required.toString(), required.contains("org.opencord.bng"));
            assertTrue(required.toString(), required.contains("org.opencord.sadis"));
        }
    }

    /** Splits a manifest header at the commas outside quotes. */
    private static List<String> splitClauses(String header) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}
