package org.bngpod.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.google.common.collect.ImmutableList;
import org.bngpod.api.Macs;
import org.bngpod.api.Names;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;
import org.onlab.packet.MacAddress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * A JSON value of the pod configuration together with its path from the pod
 * object, with strict typed readers that fail with path-named
 * {@link InvalidPodConfigException}s.
 *
 * <p>Readers take JSON types as they are: a number written as a string is not
 * a number. An absent field and a JSON null are both "not present".</p>
 */
final class ConfigNode {

    private static final Pattern MAC = Pattern.compile("[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}");
    /** Longest part of a string value quoted in a message. */
    private static final int MAX_QUOTED = 64;
    private static final Pattern PREFIX_LENGTH = Pattern.compile("[0-9]{1,3}");

    private final JsonNode value;
    private final String path;

    private ConfigNode(JsonNode value, String path) {
        this.value = value == null ? MissingNode.getInstance() : value;
        this.path = path;
    }

    /**
     * Returns the node of the pod object itself.
     *
     * @param pod the pod's JSON
     * @return root node, with the empty path
     */
    static ConfigNode root(JsonNode pod) {
        return new ConfigNode(pod, "");
    }

    /**
     * Returns the path of the value from the pod object.
     *
     * @return path, e.g. {@code lineGroups[0].lines[1].stag}
     */
    String path() {
        return path;
    }

    /**
     * Returns an exception about this value.
     *
     * @param reason what is wrong
     * @return exception naming this value's path
     */
    InvalidPodConfigException error(String reason) {
        return new InvalidPodConfigException(path, reason);
    }

    /**
     * Tells whether the value is present: neither absent nor JSON null.
     *
     * @return true if present
     */
    boolean isPresent() {
        return !value.isMissingNode() && !value.isNull();
    }

    /**
     * Checks that the value is an object with all the required fields and no
     * fields besides the required and optional ones.
     *
     * @param required required field names
     * @param optional optional field names
     * @return this node
     * @throws InvalidPodConfigException if not
     */
    ConfigNode checkObject(List<String> required, List<String> optional) {
        if (!value.isObject()) {
            throw error("expected an object, got " + describe(value));
        }
        Iterator<String> names = value.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!required.contains(name) && !optional.contains(name)) {
                List<String> allowed = new ArrayList<>(required);
                allowed.addAll(optional);
                throw field(name).error("unknown field (allowed: " + String.join(", ", allowed) + ")");
            }
        }
        for (String name : required) {
            if (value.path(name).isMissingNode()) {
                throw field(name).error("required field is missing");
            }
        }
        return this;
    }

    /**
     * Checks that the value is an object with exactly the given fields.
     *
     * @param required required field names
     * @return this node
     * @throws InvalidPodConfigException if not
     */
    ConfigNode checkObject(String... required) {
        return checkObject(Arrays.asList(required), ImmutableList.of());
    }

    /**
     * Returns a field of this object; the field may be absent.
     *
     * @param name field name
     * @return the field's node
     */
    ConfigNode field(String name) {
        return new ConfigNode(value.path(name), path.isEmpty() ? name : path + "." + name);
    }

    /**
     * Returns the elements of this array.
     *
     * @return element nodes, each with its index in its path
     * @throws InvalidPodConfigException if the value is not an array
     */
    List<ConfigNode> elements() {
        if (!value.isArray()) {
            throw error("expected an array, got " + describe(value));
        }
        List<ConfigNode> elements = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            elements.add(new ConfigNode(value.get(i), path + "[" + i + "]"));
        }
        return elements;
    }

    /**
     * Returns the elements of this array, or none if the value is not present.
     *
     * @return element nodes
     * @throws InvalidPodConfigException if the value is present but not an array
     */
    List<ConfigNode> optionalElements() {
        return isPresent() ? elements() : ImmutableList.of();
    }

    /**
     * Reads a string.
     *
     * @return the string
     * @throws InvalidPodConfigException if the value is not a string
     */
    String text() {
        if (!value.isTextual()) {
            throw error("expected a string, got " + describe(value));
        }
        return value.textValue();
    }

    /**
     * Reads an object name (see {@link Names#isValid(String)}).
     *
     * @return the name
     * @throws InvalidPodConfigException if the value is not a valid name
     */
    String name() {
        String name = text();
        if (!Names.isValid(name)) {
            throw error(quote(name) + " is not a valid name (1.." + Names.MAX_LENGTH
                                + " letters, digits, '_', '.', '-', not starting with a symbol)");
        }
        return name;
    }

    /**
     * Reads an integer within bounds.
     *
     * @param min  lowest value accepted
     * @param max  highest value accepted
     * @param what what the value is, with its article, e.g. "a VLAN id"
     * @return the value
     * @throws InvalidPodConfigException if the value is not an integer in min..max
     */
    long integer(long min, long max, String what) {
        if (!value.isIntegralNumber()) {
            throw error("expected an integer, got " + describe(value));
        }
        if (!value.canConvertToLong() || value.longValue() < min || value.longValue() > max) {
            String bounds = max == Long.MAX_VALUE ? ">= " + min : min + ".." + max;
            throw error(value.asText() + " is not " + what + " (" + bounds + ")");
        }
        return value.longValue();
    }

    /**
     * Reads an integer within int bounds.
     *
     * @param min  lowest value accepted
     * @param max  highest value accepted
     * @param what what the value is, with its article
     * @return the value
     * @throws InvalidPodConfigException if the value is not an integer in min..max
     */
    int intValue(int min, int max, String what) {
        return (int) integer(min, max, what);
    }

    /**
     * Reads a rate in bit/s, a positive integer.
     *
     * @return the rate
     * @throws InvalidPodConfigException if the value is not a positive integer
     */
    long rate() {
        return integer(1, Long.MAX_VALUE, "a rate in bit/s");
    }

    /**
     * Reads a unicast MAC address, aa:bb:cc:dd:ee:ff.
     *
     * @return the MAC address
     * @throws InvalidPodConfigException if the value is not a unicast MAC address
     */
    MacAddress mac() {
        String text = text();
        if (!MAC.matcher(text).matches()) {
            throw error(quote(text) + " is not a MAC address (aa:bb:cc:dd:ee:ff)");
        }
        MacAddress mac = MacAddress.valueOf(text);
        if (!Macs.isUnicast(mac)) {
            throw error(text + " is not a unicast MAC address");
        }
        return mac;
    }

    /**
     * Reads an IPv4 or IPv6 address.
     *
     * @return the address
     * @throws InvalidPodConfigException if the value is not an IP address
     */
    IpAddress ip() {
        String text = text();
        try {
            return IpAddress.valueOf(text);
        } catch (IllegalArgumentException e) {
            throw error(quote(text) + " is not an IP address");
        }
    }

    /**
     * Reads an IP prefix, address/length, with no host bits set.
     *
     * @return the prefix
     * @throws InvalidPodConfigException if the value is not such a prefix
     */
    IpPrefix prefix() {
        String text = text();
        int slash = text.indexOf('/');
        if (slash < 0 || !PREFIX_LENGTH.matcher(text.substring(slash + 1)).matches()) {
            throw error(quote(text) + " is not an IP prefix (address/length)");
        }
        IpAddress address;
        try {
            address = IpAddress.valueOf(text.substring(0, slash));
        } catch (IllegalArgumentException e) {
            throw error(quote(text) + " is not an IP prefix (address/length)");
        }
        int length = Integer.parseInt(text.substring(slash + 1));
        int maxLength = address.isIp4() ? IpPrefix.MAX_INET_MASK_LENGTH : IpPrefix.MAX_INET6_MASK_LENGTH;
        if (length > maxLength) {
            throw error(quote(text) + " has a prefix length above " + maxLength);
        }
        IpPrefix prefix = IpPrefix.valueOf(address, length);
        if (!prefix.address().equals(address)) {
            throw error(quote(text) + " has host bits set (the prefix is " + prefix + ")");
        }
        return prefix;
    }

    /**
     * Builds a model object from values read here; a model check that still
     * fails is reported at this node.
     *
     * @param builder builds the object
     * @param <T>     object type
     * @return the object
     * @throws InvalidPodConfigException if the model refuses the values
     */
    <T> T build(Supplier<T> builder) {
        try {
            return builder.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw error(String.valueOf(e.getMessage()));
        }
    }

    /**
     * Quotes a string value for a message, escaping quotes, backslashes and
     * control characters, and cutting it short if it is long.
     *
     * @param text string value
     * @return quoted text
     */
    static String quote(String text) {
        boolean cut = text.length() > MAX_QUOTED;
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : (cut ? text.substring(0, MAX_QUOTED) : text).toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append(cut ? "...\"" : "\"").toString();
    }

    private static String describe(JsonNode node) {
        if (node.isMissingNode()) {
            return "nothing";
        } else if (node.isNull()) {
            return "null";
        } else if (node.isTextual()) {
            return quote(node.textValue());
        } else if (node.isObject()) {
            return "an object";
        } else if (node.isArray()) {
            return "an array";
        }
        return node.asText();
    }
}
