package org.bngpod.app.steering;

import org.onosproject.net.driver.Behaviour;
import org.onosproject.net.driver.DefaultDriverProvider;
import org.onosproject.net.driver.Driver;
import org.onosproject.net.driver.XmlDriverLoader;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The drivers ONOS 2.5.6 ships in its drivers app (onos-drivers.xml of
 * onos-drivers-default), loaded by ONOS's own loader: each with the
 * behaviours, pipeliner included, that it declares or inherits. Behaviours
 * whose classes live in ONOS bundles the tests do not have (the OpenFlow
 * protocol's, for one) are left out; the pipeliners are all there.
 */
public final class OnosDrivers {

    private static final Map<String, Driver> DRIVERS = load();

    private OnosDrivers() {
    }

    /**
     * Returns every driver, by name.
     *
     * @return the drivers
     */
    public static Map<String, Driver> all() {
        return DRIVERS;
    }

    /**
     * Returns a driver.
     *
     * @param name driver name
     * @return the driver, or null if ONOS has none of that name
     */
    public static Driver named(String name) {
        return DRIVERS.get(name);
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Behaviour> behaviour(String name) {
        try {
            return (Class<? extends Behaviour>) Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("not on the classpath: " + name, e);
        }
    }

    private static boolean loadable(String name) {
        try {
            Class.forName(name, false, OnosDrivers.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            // absent, or it extends a class of a bundle the tests do not have
            return false;
        }
    }

    private static Map<String, Driver> load() {
        try (InputStream in = OnosDrivers.class.getResourceAsStream("/onos-drivers.xml")) {
            if (in == null) {
                throw new IllegalStateException("onos-drivers.xml (onos-drivers-default) is not on the classpath");
            }
            Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
            NodeList behaviours = xml.getElementsByTagName("behaviour");
            for (int i = behaviours.getLength() - 1; i >= 0; i--) {
                Element b = (Element) behaviours.item(i);
                if (!loadable(b.getAttribute("api")) || !loadable(b.getAttribute("impl"))) {
                    b.getParentNode().removeChild(b);
                }
            }
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            TransformerFactory.newInstance().newTransformer().transform(new DOMSource(xml), new StreamResult(kept));
            XmlDriverLoader loader = new XmlDriverLoader(OnosDrivers.class.getClassLoader(), OnosDrivers::behaviour);
            DefaultDriverProvider provider = loader.loadDrivers(new ByteArrayInputStream(kept.toByteArray()),
                                                                name -> null);
            Map<String, Driver> drivers = new TreeMap<>();
            provider.getDrivers().forEach(d -> drivers.put(d.name(), d));
            return drivers;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ParserConfigurationException | SAXException | TransformerException e) {
            throw new IllegalStateException("onos-drivers.xml cannot be read", e);
        }
    }
}
