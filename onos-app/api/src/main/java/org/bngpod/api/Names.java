package org.bngpod.api;

import java.util.regex.Pattern;

/**
 * The names that objects of a pod are known and referred to by.
 */
public final class Names {

    /** Longest name accepted. */
    public static final int MAX_LENGTH = 63;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    private Names() {
    }

    /**
     * Tells whether a string is a valid object name: 1 to {@value #MAX_LENGTH}
     * characters, letters, digits, '_', '.' and '-', starting with a letter or
     * a digit.
     *
     * @param name candidate, may be null
     * @return true if it is a valid name
     */
    public static boolean isValid(String name) {
        return name != null && name.length() <= MAX_LENGTH && NAME.matcher(name).matches();
    }
}
