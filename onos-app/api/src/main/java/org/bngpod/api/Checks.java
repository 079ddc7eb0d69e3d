package org.bngpod.api;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Argument checks shared by the model classes.
 */
final class Checks {

    private Checks() {
    }

    /**
     * Returns the given name after checking it against {@link Names#isValid(String)}.
     *
     * @param name name to check
     * @param what what the name names, for the message
     * @return name
     */
    static String name(String name, String what) {
        checkNotNull(name, "%s name is null", what);
        checkArgument(Names.isValid(name), "%s name \"%s\" is not a valid name", what, name);
        return name;
    }

    static long positive(long value, String what) {
        checkArgument(value > 0, "%s must be positive: %s", what, value);
        return value;
    }

    static int inRange(int value, int min, int max, String what) {
        checkArgument(value >= min && value <= max, "%s %s is not in %s..%s", what, value, min, max);
        return value;
    }

    /**
     * Checks that no two elements share a key.
     *
     * @param elements elements
     * @param key      key of an element
     * @param what     what the key is, for the message
     * @param <T>      element type
     * @param <K>      key type
     */
    static <T, K> void unique(Collection<T> elements, Function<T, K> key, String what) {
        Set<K> seen = new HashSet<>();
        for (T element : elements) {
            K k = key.apply(element);
            checkArgument(seen.add(k), "duplicate %s %s", what, k);
        }
    }
}
