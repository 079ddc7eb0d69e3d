package org.bngpod.api;

import com.google.common.base.MoreObjects;
import com.google.common.collect.ImmutableList;
import org.onlab.packet.IpAddress;
import org.onlab.packet.IpPrefix;

import java.util.List;
import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A subscriber address pool.
 */
public final class Pool {

    private final String name;
    private final IpPrefix prefix;
    private final List<IpAddress> dns;

    private Pool(String name, IpPrefix prefix, List<IpAddress> dns) {
        this.name = Checks.name(name, "pool");
        this.prefix = checkNotNull(prefix, "pool %s: prefix is null", name);
        this.dns = ImmutableList.copyOf(dns);
    }

    /**
     * Returns a pool.
     *
     * @param name   pool name
     * @param prefix the pool's prefix
     * @param dns    DNS servers handed to its subscribers, in order
     * @return the pool
     */
    public static Pool of(String name, IpPrefix prefix, List<IpAddress> dns) {
        return new Pool(name, prefix, dns);
    }

    /**
     * Returns the pool's name.
     *
     * @return name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the pool's prefix.
     *
     * @return prefix
     */
    public IpPrefix prefix() {
        return prefix;
    }

    /**
     * Returns the DNS servers handed to the pool's subscribers.
     *
     * @return DNS server addresses, in order
     */
    public List<IpAddress> dns() {
        return dns;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Pool)) {
            return false;
        }
        Pool that = (Pool) obj;
        return name.equals(that.name) && prefix.equals(that.prefix) && dns.equals(that.dns);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, prefix, dns);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this)
                .add("name", name).add("prefix", prefix).add("dns", dns).toString();
    }
}
