package org.bngpod.app.gui;

import org.bngpod.api.Session;

import java.util.Locale;
import java.util.function.Predicate;

/**
 * The view's session search: one text, matched without regard to case as a
 * part of the user name, of the IPv4 address, or of the line written as
 * RADIUS's NAS-Port-Id ("access1:150.7": access port, S-tag, C-tag), or as
 * the whole session id (Acct-Session-Id). An empty text matches every session.
 */
final class SessionSearch implements Predicate<Session> {

    /** Longest text searched for (a RADIUS user name's length). */
    static final int MAX_LENGTH = Session.MAX_USERNAME_LENGTH;

    private final String text;

    private SessionSearch(String text) {
        this.text = text;
    }

    /**
     * Returns the search for a text the GUI sent.
     *
     * @param text what the operator typed, or null
     * @return the search
     * @throws IllegalArgumentException if the text is longer than {@link #MAX_LENGTH}
     */
    static SessionSearch of(String text) {
        String t = text == null ? "" : text.trim();
        if (t.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("search text longer than " + MAX_LENGTH + " characters");
        }
        return new SessionSearch(t.toLowerCase(Locale.ROOT));
    }

    /**
     * Returns the line of a session as the search and the view write it.
     *
     * @param s session
     * @return "port:stag.ctag"
     */
    static String line(Session s) {
        return s.accessPort() + ":" + s.stag() + "." + s.ctag();
    }

    String text() {
        return text;
    }

    boolean isEmpty() {
        return text.isEmpty();
    }

    @Override
    public boolean test(Session s) {
        return text.isEmpty()
                || s.username().toLowerCase(Locale.ROOT).contains(text)
                || s.ipv4().map(a -> a.toString().contains(text)).orElse(false)
                || line(s).toLowerCase(Locale.ROOT).contains(text)
                || s.id().toLowerCase(Locale.ROOT).equals(text);
    }
}
