package org.bngpod.app.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * What every bngpod resource shares: bounded, strict reading of request
 * bodies and the error shape {"error": "text naming the field"}.
 */
final class RestSupport {

    /** Deepest JSON nesting accepted (Contract B needs 4). */
    static final int MAX_DEPTH = 32;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private RestSupport() {
    }

    /**
     * Returns an error response.
     *
     * @param status  HTTP status
     * @param message text naming the field
     * @return response with {"error": message}
     */
    static Response error(Response.Status status, String message) {
        return error(status.getStatusCode(), message);
    }

    static Response error(int status, String message) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("error", message);
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(body.toString()).build();
    }

    /** Thrown to answer with an error response. */
    static WebApplicationException fail(Response.Status status, String message) {
        return new WebApplicationException(message, error(status, message));
    }

    /**
     * Reads a JSON object body of at most maxBytes bytes.
     *
     * @param in       request body
     * @param maxBytes largest body accepted
     * @return the object
     * @throws WebApplicationException 413 if too large, 400 if not a JSON object
     */
    static JsonNode readObject(InputStream in, int maxBytes) {
        byte[] body;
        try {
            body = readAtMost(in, maxBytes);
        } catch (IOException e) {
            throw fail(Response.Status.BAD_REQUEST, "body: cannot be read: " + e.getMessage());
        }
        if (body == null) {
            throw fail(Response.Status.REQUEST_ENTITY_TOO_LARGE,
                       String.format(Locale.ROOT, "body: larger than %,d bytes", maxBytes));
        }
        if (tooDeep(body)) {
            throw fail(Response.Status.BAD_REQUEST, "body: JSON nested deeper than " + MAX_DEPTH + " levels");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw fail(Response.Status.BAD_REQUEST, "body: not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw fail(Response.Status.BAD_REQUEST, "body: not JSON: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw fail(Response.Status.BAD_REQUEST, "body: expected a JSON object");
        }
        return node;
    }

    /** Returns the body, or null if it is longer than max. */
    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (in == null) {
            return out.toByteArray();
        }
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) > 0) {
            if (out.size() + n > max) {
                return null;
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    /** Jackson's tree reader recurses per level: refuse deep nesting before it sees the body. */
    static boolean tooDeep(byte[] body) {
        int depth = 0;
        boolean inString = false;
        boolean escaped = false;
        for (byte b : body) {
            if (inString) {
                if (escaped) {
                    escaped = false;
                } else if (b == '\\') {
                    escaped = true;
                } else if (b == '"') {
                    inString = false;
                }
            } else if (b == '"') {
                inString = true;
            } else if (b == '[' || b == '{') {
                if (++depth > MAX_DEPTH) {
                    return true;
                }
            } else if (b == ']' || b == '}') {
                depth--;
            }
        }
        return false;
    }

    /**
     * Parses an instance id from a path segment.
     *
     * @param text path segment
     * @return id
     * @throws WebApplicationException 400 if not a number
     */
    static int instanceId(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw fail(Response.Status.BAD_REQUEST, "instance id: \"" + text + "\" is not a number");
        }
    }
}
