package org.bngpod.app.emu;

import com.google.common.base.Splitter;
import org.bngpod.app.steering.OvsSwitch;
import org.onlab.packet.ChassisId;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DefaultDevice;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.provider.ProviderId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The switch and its ports as ONOS's OpenFlow device provider would report
 * them: the ports of {@code ovs-ofctl dump-ports-desc} at start, then every
 * OFPT_PORT_STATUS the switch sends on an OpenFlow connection of its own
 * ({@code ovs-ofctl monitor}), as device port events: a port whose link is
 * down or that is administratively down is not enabled (PORT_UPDATED), an
 * added or deleted port is PORT_ADDED / PORT_REMOVED. The app fails the
 * instances behind a port that goes down over at once.
 *
 * <p>When the monitor's connection ends (Open vSwitch restarted), the device
 * is unavailable until it is back: then DEVICE_AVAILABILITY_CHANGED, and the
 * app sends its steering again, as it does when a switch reconnects to ONOS.</p>
 */
final class OvsPorts extends DeviceServiceAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(OvsPorts.class);
    /** The first line of a port: "  4901(v4901): addr:..." (OFPT_PORT_STATUS: "... MOD: 4901(v4901): addr"). */
    private static final Pattern PORT = Pattern.compile("(?:^\\s*|: )(\\d+|LOCAL)\\(([^)]*)\\): addr:");
    private static final Pattern REASON = Pattern.compile("OFPT_PORT_STATUS[^:]*: (ADD|DEL|MOD):");

    private final Device device;
    private final String target;
    private final OvsSwitch.Ofctl ofctl;
    private final List<String> monitorCommand;
    private final BiConsumer<Long, Boolean> portChanged;
    private final List<DeviceListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<PortNumber, Port> ports = new ConcurrentHashMap<>();
    private volatile boolean available;
    private volatile boolean stopped;
    private volatile Process monitor;
    private Thread reader;

    /**
     * The switch.
     *
     * @param id             its device id
     * @param target         ovs-ofctl's name of it
     * @param ofctl          runs ovs-ofctl
     * @param monitorCommand the command that prints the switch's port status messages
     * @param portChanged    told of every port event (number, enabled)
     */
    OvsPorts(DeviceId id, String target, OvsSwitch.Ofctl ofctl, List<String> monitorCommand,
             BiConsumer<Long, Boolean> portChanged) {
        this.device = new DefaultDevice(ProviderId.NONE, id, Device.Type.SWITCH, "Nicira, Inc.", "Open vSwitch",
                                        "3.1", "emulated", new ChassisId(id.toString().hashCode() & 0xffffffffL));
        this.target = target;
        this.ofctl = ofctl;
        this.monitorCommand = List.copyOf(monitorCommand);
        this.portChanged = portChanged;
    }

    /**
     * Reads the ports and starts following their status.
     *
     * @throws Exception if the switch does not answer
     */
    void start() throws Exception {
        for (Block b : blocks(ofctl.run(null, "dump-ports-desc", target))) {
            if (b.number != null) {
                ports.put(b.number, port(b.number, b.enabled));
            }
        }
        available = true;
        reader = new Thread(this::follow, "ovs-port-status");
        reader.setDaemon(true);
        reader.start();
        post(new DeviceEvent(DeviceEvent.Type.DEVICE_ADDED, device));
    }

    /** Stops following the switch. */
    void stop() {
        stopped = true;
        Process p = monitor;
        if (p != null) {
            p.destroy();
        }
    }

    private Port port(PortNumber number, boolean enabled) {
        return new DefaultPort(device, number, enabled, DefaultAnnotations.EMPTY);
    }

    private void post(DeviceEvent event) {
        for (DeviceListener l : listeners) {
            if (l.isRelevant(event)) {
                l.event(event);
            }
        }
    }

    /** Runs the monitor, and again when its connection ends. */
    private void follow() {
        long backoff = 100;
        while (!stopped) {
            try {
                Process p = new ProcessBuilder(monitorCommand).redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
                monitor = p;
                if (!available) {
                    // the switch is back: what it has may be anything (ONOS resyncs a reconnected switch)
                    available = true;
                    post(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, device));
                }
                read(p);
                p.waitFor();
            } catch (IOException e) {
                LOG.warn("cannot follow the port status of {}: {}", target, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (stopped) {
                return;
            }
            if (available) {
                available = false;
                LOG.warn("the OpenFlow connection to {} ended; the device is unavailable", target);
                post(new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED, device));
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            backoff = Math.min(backoff * 2, 2000);
        }
    }

    private void read(Process p) throws IOException {
        String last = "";
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                                                                          StandardCharsets.UTF_8))) {
            List<String> message = new ArrayList<>();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                last = line;
                if (!line.startsWith(" ") && !message.isEmpty()) {
                    statusMessage(message);
                    message.clear();
                }
                message.add(line);
                // a port status message ends with its speed line: act at once, not at the next message
                if (line.trim().startsWith("speed:") && !message.isEmpty()) {
                    statusMessage(message);
                    message.clear();
                }
            }
            if (!message.isEmpty()) {
                statusMessage(message);
            }
        }
        if (!stopped) {
            LOG.warn("the port status monitor of {} ended: {}", target, last);
        }
    }

    private void statusMessage(List<String> lines) {
        Matcher reason = REASON.matcher(lines.get(0));
        if (!reason.find()) {
            return; // flow removed and other asynchronous messages
        }
        for (Block b : blocks(String.join("\n", lines))) {
            if (b.number == null) {
                continue;
            }
            DeviceEvent.Type type;
            Port port = port(b.number, b.enabled && !reason.group(1).equals("DEL"));
            switch (reason.group(1)) {
                case "ADD":
                    type = DeviceEvent.Type.PORT_ADDED;
                    ports.put(b.number, port);
                    break;
                case "DEL":
                    type = DeviceEvent.Type.PORT_REMOVED;
                    ports.remove(b.number);
                    break;
                default:
                    Port before = ports.put(b.number, port);
                    if (before != null && before.isEnabled() == port.isEnabled()) {
                        continue; // a change the app does not care for (speed, ...)
                    }
                    type = DeviceEvent.Type.PORT_UPDATED;
            }
            LOG.info("port {} of {}: {} ({})", b.number, device.id(), type, port.isEnabled() ? "enabled" : "down");
            portChanged.accept(b.number.toLong(), port.isEnabled());
            post(new DeviceEvent(type, device, port));
        }
    }

    /** One port in ovs-ofctl's output: its number (null for LOCAL), and whether it is up. */
    private static final class Block {
        PortNumber number;
        boolean enabled = true;
    }

    private static List<Block> blocks(String text) {
        List<Block> out = new ArrayList<>();
        Block current = null;
        for (String line : Splitter.on('\n').split(text)) {
            Matcher m = PORT.matcher(line);
            if (m.find()) {
                current = new Block();
                current.number = m.group(1).equals("LOCAL") ? null : PortNumber.portNumber(Long.parseLong(m.group(1)));
                out.add(current);
                continue;
            }
            String t = line.trim();
            if (current != null && ((t.startsWith("config:") && t.contains("PORT_DOWN"))
                    || (t.startsWith("state:") && t.contains("LINK_DOWN")))) {
                current.enabled = false;
            }
        }
        return out;
    }

    // ----------------------------------------------------------------- DeviceService

    @Override
    public int getDeviceCount() {
        return 1;
    }

    @Override
    public Iterable<Device> getDevices() {
        return List.of(device);
    }

    @Override
    public Iterable<Device> getAvailableDevices() {
        return available ? List.of(device) : List.of();
    }

    @Override
    public Device getDevice(DeviceId deviceId) {
        return device.id().equals(deviceId) ? device : null;
    }

    @Override
    public boolean isAvailable(DeviceId deviceId) {
        return available && device.id().equals(deviceId);
    }

    @Override
    public List<Port> getPorts(DeviceId deviceId) {
        return device.id().equals(deviceId) ? List.copyOf(ports.values()) : List.of();
    }

    @Override
    public Port getPort(DeviceId deviceId, PortNumber portNumber) {
        return device.id().equals(deviceId) ? ports.get(portNumber) : null;
    }

    @Override
    public void addListener(DeviceListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(DeviceListener listener) {
        listeners.remove(listener);
    }
}
