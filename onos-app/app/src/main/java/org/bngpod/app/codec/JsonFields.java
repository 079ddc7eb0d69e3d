package org.bngpod.app.codec;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;

/**
 * Strict reading of hostile JSON: each value has exactly its JSON type (a
 * number written as a string is refused) and its range; every message names
 * the field by its path, e.g. "sessions[3].stag: 5000 is not a VLAN id (1..4094)".
 */
public final class JsonFields {

    private JsonFields() {
    }

    /**
     * Joins a path and a field name.
     *
     * @param path  path of the object ("" at the top)
     * @param field field name
     * @return path of the field
     */
    public static String at(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    /**
     * Returns an object.
     *
     * @param node JSON value
     * @param path its path
     * @return the node
     * @throws IllegalArgumentException if it is not an object
     */
    public static JsonNode object(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException((path.isEmpty() ? "body" : path) + ": expected an object");
        }
        return node;
    }

    private static JsonNode required(JsonNode obj, String field, String path) {
        JsonNode v = obj.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException(at(path, field) + ": missing");
        }
        return v;
    }

    /**
     * Returns a required string field.
     *
     * @param obj   object
     * @param field field name
     * @param path  object's path
     * @param max   longest accepted length
     * @return the string
     */
    public static String text(JsonNode obj, String field, String path, int max) {
        JsonNode v = required(obj, field, path);
        return checkText(v, at(path, field), max);
    }

    /**
     * Returns an optional string field.
     *
     * @param obj   object
     * @param field field name
     * @param path  object's path
     * @param max   longest accepted length
     * @return the string, or null when absent or null
     */
    public static String optText(JsonNode obj, String field, String path, int max) {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? null : checkText(v, at(path, field), max);
    }

    private static String checkText(JsonNode v, String where, int max) {
        if (!v.isTextual()) {
            throw new IllegalArgumentException(where + ": expected a string, got " + kind(v));
        }
        String s = v.asText();
        if (s.length() > max) {
            throw new IllegalArgumentException(where + ": longer than " + max + " characters");
        }
        return s;
    }

    /**
     * Returns a required integer field within a range.
     *
     * @param obj   object
     * @param field field name
     * @param path  object's path
     * @param min   lowest value
     * @param max   highest value
     * @return the value
     */
    public static long integer(JsonNode obj, String field, String path, long min, long max) {
        return checkInteger(required(obj, field, path), at(path, field), min, max);
    }

    /**
     * Returns an optional integer field within a range.
     *
     * @param obj   object
     * @param field field name
     * @param path  object's path
     * @param min   lowest value
     * @param max   highest value
     * @return the value, or null when absent or null
     */
    public static Long optInteger(JsonNode obj, String field, String path, long min, long max) {
        JsonNode v = obj.get(field);
        return v == null || v.isNull() ? null : checkInteger(v, at(path, field), min, max);
    }

    private static long checkInteger(JsonNode v, String where, long min, long max) {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new IllegalArgumentException(where + ": expected an integer, got " + kind(v));
        }
        long n = v.asLong();
        if (n < min || n > max) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: %d is out of range (%d..%d)",
                                                             where, n, min, max));
        }
        return n;
    }

    /**
     * Returns a required boolean field.
     *
     * @param obj   object
     * @param field field name
     * @param path  object's path
     * @return the value
     */
    public static boolean bool(JsonNode obj, String field, String path) {
        JsonNode v = required(obj, field, path);
        if (!v.isBoolean()) {
            throw new IllegalArgumentException(at(path, field) + ": expected true or false, got " + kind(v));
        }
        return v.asBoolean();
    }

    /**
     * Returns a required array field.
     *
     * @param obj      object
     * @param field    field name
     * @param path     object's path
     * @param maxItems most items accepted
     * @return the array
     */
    public static JsonNode array(JsonNode obj, String field, String path, int maxItems) {
        JsonNode v = required(obj, field, path);
        if (!v.isArray()) {
            throw new IllegalArgumentException(at(path, field) + ": expected an array, got " + kind(v));
        }
        if (v.size() > maxItems) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s: %d items, at most %d accepted",
                                                             at(path, field), v.size(), maxItems));
        }
        return v;
    }

    private static String kind(JsonNode v) {
        return v.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
