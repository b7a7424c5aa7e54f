package dev.jrxe.memory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Which of the process's mappings are shared mappings of a file (/proc/self/maps): the memory a
 * FLUSH PERSISTENT can make durable, since msync writes it back. Read at registration only.
 */
final class FileMappings {
    private FileMappings() {
    }

    /** Whether every byte of {@code [addr, addr+length)} lies in shared file mappings. */
    static boolean sharedFileBacked(long addr, long length) {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            return false;
        }
        long at = addr;
        long end = addr + length;
        for (String line : lines) {
            // start-end perms offset dev inode [path]
            String[] f = line.trim().split("\\s+", 6);
            if (f.length < 6) {
                continue;
            }
            int dash = f[0].indexOf('-');
            long start = Long.parseUnsignedLong(f[0].substring(0, dash), 16);
            long stop = Long.parseUnsignedLong(f[0].substring(dash + 1), 16);
            if (stop <= at || start > at) {
                continue;
            }
            boolean shared = f[1].length() >= 4 && f[1].charAt(3) == 's';
            boolean file = !"0".equals(f[4]) && f[5].startsWith("/");
            if (!shared || !file) {
                return false;
            }
            at = stop;
            if (at >= end) {
                return true;
            }
        }
        return false;
    }
}
