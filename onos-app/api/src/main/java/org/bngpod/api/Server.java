package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A server that hosts DP instances.
 */
public final class Server {

    private final String name;
    private final List<ServerPort> ports;

    private Server(String name, List<ServerPort> ports) {
        this.name = Checks.name(name, "server");
        this.ports = ImmutableList.copyOf(ports);
        Checks.unique(this.ports, ServerPort::name, "port of server " + name + ":");
    }

    /**
     * Returns a server.
     *
     * @param name  server name
     * @param ports its ports, with distinct names
     * @return the server
     */
    public static Server of(String name, List<ServerPort> ports) {
        return new Server(name, ports);
    }

    /**
     * Returns the server's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the server's ports.
     *
     * @return ports, in configuration order
     */
    public List<ServerPort> ports() {
        return ports;
    }

    /**
     * Returns a port by name.
     *
     * @param name port name
     * @return the port, or empty if the server has no such port
     */
    public Optional<ServerPort> port(String name) {
        return ports.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Server)) {
            return false;
        }
        Server that = (Server) obj;
        return name.equals(that.name) && ports.equals(that.ports);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, ports);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("name", name).add("ports", ports).toString();
    }
}
