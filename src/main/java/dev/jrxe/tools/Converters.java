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
                throw new TypeConversionException(v
                    + " cannot be a device's address (not 0.0.0.0, broadcast or multicast)");
            }
            if (!local(v)) {
                throw new TypeConversionException(v + " is not an address of this machine (127.0.0.0/8 always is)");
            }
            return v;
        }
    }

    /** Whether a UDP socket can bind {@code address} here (an ephemeral port, closed at once). */
    private static boolean local(String address) {
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(
            new java.net.InetSocketAddress(java.net.InetAddress.getByName(address), 0))) {
            return probe.isBound();
        } catch (java.io.IOException e) {
            return false;
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

    /** A count that may be 0 (warm-up rounds, milliseconds). */
    static final class NonNegative implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 0, Integer.MAX_VALUE, "0 or more");
        }
    }

    /** A message size that may be 0: bytes, or with a K, M or G suffix (powers of 1024). */
    static final class Size implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return sizeIn(value, 0);
        }
    }

    /** A message size of at least one byte: bytes, or with a K, M or G suffix. */
    static final class PositiveSize implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return sizeIn(value, 1);
        }
    }

    private static int sizeIn(String value, int min) {
        String v = value.strip();
        String what = "a size of " + min + (min == 1 ? " byte" : " bytes")
            + " or more (e.g. 4096, 4K, 1M; at most 2G-1)";
        long n;
        try {
            n = v.matches("0+\\s*[kKmMgG]?(?:[iI]?[bB])?") ? 0 : RegBenchSizes.parse(v);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        if (n < min || n > Integer.MAX_VALUE) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        return (int) n;
    }

    /** A path MTU in bytes, as the ibv_*_pingpong tools' {@code -m}: 256, 512, 1024, 2048 or 4096. */
    static final class MtuBytes implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int n = intIn(value, 256, 4096, "an MTU (256, 512, 1024, 2048 or 4096)");
            if (dev.jrxe.ib.Mtu.fromBytes(n) < 0) {
                throw new TypeConversionException(n + " is not an MTU (256, 512, 1024, 2048 or 4096)");
            }
            return n;
        }
    }

    /** A port of the device ({@code -i}): a jrxe device has exactly port 1. */
    static final class IbPort implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int n = intIn(value, Integer.MIN_VALUE, Integer.MAX_VALUE, "a port number");
            if (n != 1) {
                throw new TypeConversionException("port " + n + " does not exist: a jrxe device has port 1 only");
            }
            return n;
        }
    }

    /**
     * A GID index ({@code -g}): a jrxe device's GID table holds one entry, the IPv4-mapped RoCEv2
     * GID at index 1 (where rxe has it); every other entry is empty, and RoCE cannot go without one.
     */
    static final class GidIndex implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int n = intIn(value, Integer.MIN_VALUE, Integer.MAX_VALUE, "a GID index");
            if (n != dev.jrxe.verbs.Device.IPV4_GID_INDEX) {
                throw new TypeConversionException("GID index " + n + " has no GID: a jrxe device's only GID "
                    + "is index 1, the IPv4-mapped RoCEv2 GID");
            }
            return n;
        }
    }

    /** A service level: 0..15. */
    static final class ServiceLevel implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 0, 15, "a service level (0..15)");
        }
    }

    /**
     * A device name ({@code -d}): the tools open one jrxe device, named {@code jrxe} and a number;
     * any other name is not a device, as ibv_devinfo says of a name it does not find.
     */
    static final class DeviceName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String v = value.strip();
            if (!v.matches("jrxe[0-9]{1,3}")) {
                throw new TypeConversionException("IB device '" + value + "' wasn't found (jrxe's tools open "
                    + "jrxe0, jrxe1, ...)");
            }
            return v;
        }
    }

    /** A file to write: its directory exists and is writable, and it is not a directory itself. */
    static final class OutputFile implements ITypeConverter<java.nio.file.Path> {
        @Override
        public java.nio.file.Path convert(String value) {
            java.nio.file.Path p;
            try {
                p = java.nio.file.Path.of(value);
            } catch (java.nio.file.InvalidPathException e) {
                throw new TypeConversionException("'" + value + "' is not a file name");
            }
            java.nio.file.Path dir = p.toAbsolutePath().getParent();
            if (java.nio.file.Files.exists(p) && !java.nio.file.Files.isDirectory(p)) {
                // an existing file (or /dev/null, /dev/stdout) is fine when it can be written
                if (!java.nio.file.Files.isWritable(p)) {
                    throw new TypeConversionException("cannot write '" + value + "': not writable");
                }
                return p;
            }
            if (java.nio.file.Files.isDirectory(p)) {
                throw new TypeConversionException("'" + value + "' is a directory, not a file to write");
            }
            if (dir == null || !java.nio.file.Files.isDirectory(dir)) {
                throw new TypeConversionException("cannot write '" + value + "': directory " + dir + " does not exist");
            }
            if (!java.nio.file.Files.isWritable(dir)) {
                throw new TypeConversionException("cannot write '" + value + "': directory " + dir
                    + " is not writable");
            }
            return p;
        }
    }

    /** A duration in seconds, more than 0. */
    static final class PositiveSeconds implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double s;
            try {
                s = Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a number of seconds");
            }
            if (!(s > 0 && s < 1e6)) {
                throw new TypeConversionException(value + " is not a number of seconds (more than 0)");
            }
            return s;
        }
    }

    /** Datagrams per system call of the link: 1..1024. */
    static final class Batch implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 1, 1024, "a batch (1..1024 datagrams per call)");
        }
    }

    /** A RoCE payload that fits one UDP datagram with BTH and ICRC: 1..65491 bytes. */
    static final class DatagramPayload implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return sizeInRange(value, 1, 65507 - 16, "a RoCE payload in one UDP datagram (1..65491 bytes)");
        }
    }

    private static int sizeInRange(String value, int min, int max, String what) {
        int n;
        try {
            n = sizeIn(value, min);
        } catch (TypeConversionException e) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        if (n > max) {
            throw new TypeConversionException(value + " is not " + what);
        }
        return n;
    }

    /** A path of {@code bench link}: RAW, CHANNEL, MMSG or GSO, in any case. */
    static final class LinkPath implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String v = value.strip().toUpperCase(java.util.Locale.ROOT);
            if (!java.util.Set.of("RAW", "CHANNEL", "MMSG", "GSO").contains(v)) {
                throw new TypeConversionException("'" + value + "' is not a path (RAW, CHANNEL, MMSG, GSO)");
            }
            return v;
        }
    }

    /** A UDP port, or 0 for one the tool picks free: 0..65535. */
    static final class PortOrZero implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 0, 65535, "a port (1..65535, or 0 for a free one)");
        }
    }

    /**
     * The check of a combination of options (or of a range only one command has), made where the
     * command starts: a refusal is the same one line and exit status as a converter's.
     */
    static void require(picocli.CommandLine.Model.CommandSpec spec, boolean ok, String why) {
        if (!ok) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), why);
        }
    }

    /** Seconds a tool may wait without progress: 0 (forever) .. 86400 (a day). */
    static final class WaitSeconds implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return intIn(value, 0, 86400, "a number of seconds (0..86400; 0 waits forever)");
        }
    }
}
