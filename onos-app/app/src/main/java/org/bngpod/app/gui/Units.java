package org.bngpod.app.gui;

import org.onosproject.ui.table.CellFormatter;
import org.onosproject.ui.table.cell.AbstractCellFormatter;

import java.util.Locale;

/**
 * How the view writes rates and volumes: SI prefixes, three significant
 * digits ("12.5 Gbit/s", "987 GB"), as operators read them; the table keeps
 * the numbers, so a column sorts by value, not by its text.
 */
final class Units {

    /** Bit/s as "1.23 Mbit/s"; a missing value as "-". */
    static final CellFormatter BIT_RATE = new Si("bit/s");
    /** Bytes as "1.23 GB"; a missing value as "-". */
    static final CellFormatter BYTES = new Si("B");

    private static final String[] PREFIXES = {"", "k", "M", "G", "T", "P", "E"};

    private Units() {
    }

    /**
     * Writes a non-negative amount with an SI prefix and three significant digits.
     *
     * @param value amount
     * @param unit  unit after the prefix
     * @return text
     */
    static String si(long value, String unit) {
        if (value < 1000) {
            return value + " " + unit;
        }
        double v = value;
        int p = 0;
        while (v >= 999.5 && p < PREFIXES.length - 1) {
            v /= 1000;
            p++;
        }
        String digits = v >= 99.95 ? String.format(Locale.ROOT, "%.0f", v)
                : v >= 9.995 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
        return digits + " " + PREFIXES[p] + unit;
    }

    private static final class Si extends AbstractCellFormatter {
        private final String unit;

        Si(String unit) {
            this.unit = unit;
        }

        @Override
        public String format(Object value) {
            return value == null ? "-" : super.format(value);
        }

        @Override
        protected String nonNullFormat(Object value) {
            return si(((Number) value).longValue(), unit);
        }
    }
}
