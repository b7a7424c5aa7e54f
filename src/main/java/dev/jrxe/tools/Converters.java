package dev.jrxe.tools;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line's checks of values every tool shares (part of issue 17's validation layer):
 * picocli turns a refusal into one line naming the option, the value and what is allowed, before
 * any work starts.
 */
final class Converters {
    private Converters() {
    }

    /** A TCP or UDP port: 1..65535. */
    static final class Port implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 1, 65535, "a port (1..65535)");
        }
    }

    /** {@code value} as an int in {@code [min, max]}, else a refusal saying it is not {@code what}. */
    private static int intIn(String value, int min, int max, String what) {
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        if (n < min || n > max) {
            throw new TypeConversionException(n + " is not " + what);
        }
        return n;
    }

    /**
     * A jrxe device's own IPv4 address: four decimal numbers 0..255 ("1.2.3" is refused, not read
     * as 1.2.0.3), neither 0.0.0.0, nor a broadcast, nor a multicast address.
     */
    static final class DeviceAddress implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String v = value.strip();
            String[] parts = v.split("\\.", -1);
            if (parts.length != 4) {
                throw new TypeConversionException("'" + value + "' is not an IPv4 address (a.b.c.d)");
            }
            int first = -1;
            long all = 0;
            for (String part : parts) {
                if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
                    throw new TypeConversionException("'" + value + "' is not an IPv4 address (a.b.c.d)");
                }
                int n = Integer.parseInt(part);
                if (n > 255) {
                    throw new TypeConversionException("'" + value + "' is not an IPv4 address (each part 0..255)");
                }
                first = first < 0 ? n : first;
                all = all << 8 | n;
            }
            if (all == 0 || all == 0xFFFFFFFFL || (first >= 224 && first <= 239)) {
                throw new TypeConversionException(v + " cannot be a device's address (not 0.0.0.0, broadcast or multicast)");
            }
            return v;
        }
    }

    /** A count or size that must be at least 1 (iterations, message sizes). */
    static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 1, Integer.MAX_VALUE, "1 or more");
        }
    }

    /** A probability of injected faults: 0 <= p < 1. */
    static final class Probability implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double p;
            try {
                p = Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a probability (0 <= p < 1)");
            }
            if (!(p >= 0 && p < 1)) {
                throw new TypeConversionException(value + " is not a probability (0 <= p < 1)");
            }
            return p;
        }
    }

    /** A link mode: AUTO, CHANNEL, MMSG or GSO, in any case. */
    static final class LinkModeName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                return dev.jrxe.net.LinkMode.valueOf(value.strip().toUpperCase(java.util.Locale.ROOT)).name();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a link mode (AUTO, CHANNEL, MMSG, GSO)");
            }
        }
    }
}
