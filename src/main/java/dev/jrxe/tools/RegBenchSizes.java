package dev.jrxe.tools;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Byte sizes as reg-bench reads and prints them: {@code 4K}, {@code 64K}, {@code 1M}, {@code 1G} (powers of 1024). */
final class RegBenchSizes implements CommandLine.ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGT]?)(?:I?B)?");

    /** Parses one size; {@code 4K}, {@code 4KiB}, {@code 4096} are the same. */
    static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim().toUpperCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: '" + text + "' (examples: 4096, 4K, 64KiB, 1M, 1G)");
        }
        int shift = switch (m.group(2)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        long n = Long.parseLong(m.group(1));
        if (n <= 0 || n > Long.MAX_VALUE >> (shift + 1)) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        return n << shift;
    }

    /** The shortest exact form: 4096 → 4K, 1073741824 → 1G, 1000 → 1000. */
    static String format(long bytes) {
        String[] units = {"", "K", "M", "G", "T"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + units[u];
    }

    @Override
    public Long convert(String value) {
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
