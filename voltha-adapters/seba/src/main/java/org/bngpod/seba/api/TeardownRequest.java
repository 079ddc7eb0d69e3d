package org.bngpod.seba.api;

import java.time.Instant;
import java.util.Objects;

/**
 * A request to the control planes to end the sessions of one access line:
 * its UNI was removed and stayed away for the hold-down ({@link #LOST_CARRIER}),
 * or its subscriber was removed from the olt app's provisioning
 * ({@link #ADMIN_RESET}). Only sessions that started before {@link #at()} are
 * ended (a line that came back and dialled again keeps its new session).
 */
public final class TeardownRequest {

    /** Acct-Terminate-Cause of a UNI removed for longer than the hold-down. */
    public static final String LOST_CARRIER = "Lost-Carrier";
    /** Acct-Terminate-Cause of a subscriber removed from provisioning. */
    public static final String ADMIN_RESET = "Admin-Reset";

    private final long version;
    private final String accessPort;
    private final int stag;
    private final int ctag;
    private final String uni;
    private final String cause;
    private final Instant at;

    /**
     * Creates a request.
     *
     * @param version    its position in the log (from 1)
     * @param accessPort the line's access port
     * @param stag       the line's S-tag
     * @param ctag       the line's C-tag
     * @param uni        the UNI's name (SADIS id)
     * @param cause      {@link #LOST_CARRIER} or {@link #ADMIN_RESET}
     * @param at         when it was decided
     */
    public TeardownRequest(long version, String accessPort, int stag, int ctag, String uni, String cause,
                           Instant at) {
        this.version = version;
        this.accessPort = Objects.requireNonNull(accessPort);
        this.stag = stag;
        this.ctag = ctag;
        this.uni = Objects.requireNonNull(uni);
        this.cause = Objects.requireNonNull(cause);
        this.at = Objects.requireNonNull(at);
    }

    /**
     * Returns the position in the log.
     *
     * @return the version
     */
    public long version() {
        return version;
    }

    /**
     * Returns the access port.
     *
     * @return the access port's name
     */
    public String accessPort() {
        return accessPort;
    }

    /**
     * Returns the S-tag.
     *
     * @return the S-tag
     */
    public int stag() {
        return stag;
    }

    /**
     * Returns the C-tag.
     *
     * @return the C-tag
     */
    public int ctag() {
        return ctag;
    }

    /**
     * Returns the UNI's name.
     *
     * @return the UNI's name
     */
    public String uni() {
        return uni;
    }

    /**
     * Returns the Acct-Terminate-Cause the sessions end with.
     *
     * @return the cause
     */
    public String cause() {
        return cause;
    }

    /**
     * Returns when the teardown was decided.
     *
     * @return the time
     */
    public Instant at() {
        return at;
    }

    @Override
    public String toString() {
        return version + " " + accessPort + "/" + stag + "/" + ctag + " (" + uni + ") " + cause + " at " + at;
    }
}
