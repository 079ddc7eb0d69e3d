package org.bngpod.app.placement;

import com.google.common.base.MoreObjects;

import java.util.Objects;

import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Why a line group is where it is (or nowhere): a kind and a human-readable
 * text that names the instances and the numbers that decided.
 */
public final class Reason {

    /** Kinds of decisions. */
    public enum Kind {
        /** On the instance the pod file states, within its capacity. */
        STATED,
        /** On the instance the pod file states, but that instance is over capacity. */
        OVER_CAPACITY,
        /** Kept on its instance by a re-balance (it was over capacity or had no reason before). */
        KEPT,
        /** Moved (or placed) by a re-balance onto the instance with the most headroom. */
        MOVED,
        /** On no instance: none is stated, or none available can take it. */
        UNPLACED,
        /**
         * With the line groups it shares an S-tag with (split by C-tag), not
         * where the pod file states it: ONOS's switch pipelines cannot steer
         * one S-tag to two instances.
         */
        SHARED_STAG
    }

    private final Kind kind;
    private final String text;

    private Reason(Kind kind, String text) {
        this.kind = checkNotNull(kind, "kind is null");
        this.text = checkNotNull(text, "text is null");
    }

    /**
     * Returns a reason.
     *
     * @param kind kind of decision
     * @param text human-readable explanation
     * @return the reason
     */
    public static Reason of(Kind kind, String text) {
        return new Reason(kind, text);
    }

    /**
     * Returns the kind of decision.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Returns the explanation.
     *
     * @return text
     */
    public String text() {
        return text;
    }

    @Override
    public boolean equals(Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Reason)) {
            return false;
        }
        Reason that = (Reason) obj;
        return kind == that.kind && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, text);
    }

    @Override
    public String toString() {
        return MoreObjects.toStringHelper(this).add("kind", kind).add("text", text).toString();
    }
}
