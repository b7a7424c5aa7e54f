package dev.jrxe.tools;

import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.MemoryConfig;
import dev.jrxe.memory.MemoryException;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.memory.RegionKind;

import dev.jrxe.ib.Access;
import dev.jrxe.sys.Mem;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The engine behind {@code ./jrxe reg-bench}: registration latency of pinned, explicit ODP and
 * implicit ODP regions over sizes, with the implicit-ODP RFC's method (a shuffled plan with a
 * seed, one discarded warm-up per bucket, N timed registrations, only the register call timed,
 * deregistration untimed, RSS before the run and while registered). Pinned buffers are untouched
 * by default (the timed registration populates them, and they are released after each run);
 * {@link Options#withTouchPinned} touches them first, as the RFC did. Also measures the cost of
 * each access path and of first touch on implicit ODP.
 */
public final class RegistrationBenchmark {
    /** The size of an implicit ODP child (memory's OdpChunk): one first touch per chunk. */
    private static final long ODP_CHUNK = 1L << 21;
    /** The protection-domain handle every region here is registered with; copies go through the key check. */
    private static final int PD = 1;

    public static final long[] DEFAULT_SIZES = {4L << 10, 64L << 10, 1L << 20, 16L << 20, 64L << 20, 256L << 20,
            1L << 30};
    public static final String CSV_HEADER =
            "kind,size_bytes,runs,median_ns,p95_ns,p99_ns,min_ns,max_ns,failures,errno,rss_before_kib,rss_during_kib";

    private RegistrationBenchmark() {
    }

    /**
     * What to run.
     *
     * @param sizes       region sizes in bytes
     * @param runs        timed registrations per (kind, size)
     * @param seed        seed of the shuffled plan
     * @param kinds       region kinds to measure
     * @param touchPinned touch pinned buffers before timing (the RFC's method) so that the timed
     *                    call pins present pages; false also times populating them
     * @param progress    receives progress lines (e.g. for stderr); may be null
     * @param config      memory settings of the key table the benchmark registers in
     * @param jitWarmup   untimed registrations per kind before the plan, to time compiled code
     */
    public record Options(long[] sizes, int runs, long seed, Set<RegionKind> kinds, boolean touchPinned,
                          Consumer<String> progress, MemoryConfig config, int jitWarmup) {
        public static Options defaults() {
            // untouched pinned buffers by default: the timed call pins (populates) every page, and
            // the RSS sampled while registered shows what pinning costs (issue 15)
            return new Options(DEFAULT_SIZES, 30, 42, EnumSet.allOf(RegionKind.class), false, null,
                    MemoryConfig.fromConfiguration(), 2000);
        }

        public Options withJitWarmup(int value) {
            return new Options(sizes, runs, seed, kinds, touchPinned, progress, config, value);
        }

        public Options withConfig(MemoryConfig value) {
            return new Options(sizes, runs, seed, kinds, touchPinned, progress, value, jitWarmup);
        }

        public Options withSizes(long... value) {
            return new Options(value, runs, seed, kinds, touchPinned, progress, config, jitWarmup);
        }

        public Options withRuns(int value) {
            return new Options(sizes, value, seed, kinds, touchPinned, progress, config, jitWarmup);
        }

        public Options withSeed(long value) {
            return new Options(sizes, runs, value, kinds, touchPinned, progress, config, jitWarmup);
        }

        public Options withKinds(Set<RegionKind> value) {
            return new Options(sizes, runs, seed, value, touchPinned, progress, config, jitWarmup);
        }

        public Options withTouchPinned(boolean value) {
            return new Options(sizes, runs, seed, kinds, value, progress, config, jitWarmup);
        }

        public Options withProgress(Consumer<String> value) {
            return new Options(sizes, runs, seed, kinds, touchPinned, value, config, jitWarmup);
        }
    }

    /** One (kind, size) result; kind is {@code pinned}, {@code odp} or {@code implicit}. */
    public record Row(String kind, long sizeBytes, int runs, long medianNs, long p95Ns, long p99Ns, long minNs,
                      long maxNs, int failures, int errno, long rssBeforeKib, long rssDuringKib) {
        /** The row in {@link #CSV_HEADER} order. */
        public String csv() {
            return kind + "," + sizeBytes + "," + runs + "," + medianNs + "," + p95Ns + "," + p99Ns + "," + minNs
                    + "," + maxNs + "," + failures + "," + errno + "," + rssBeforeKib + "," + rssDuringKib;
        }
    }

    public static String kindName(RegionKind kind) {
        return switch (kind) {
            case PINNED -> "pinned";
            case ODP -> "odp";
            case IMPLICIT_ODP -> "implicit";
        };
    }

    /** Runs the registration benchmark; rows ordered by kind, then size. */
    public static List<Row> run(Options options) {
        KeyTable table = new KeyTable(options.config());
        Map<Long, MemorySegment> pinnedBuffers = new HashMap<>();
        Map<Long, MemorySegment> odpBuffers = new HashMap<>();
        try {
            for (long size : options.sizes()) {
                if (options.kinds().contains(RegionKind.PINNED)) {
                    MemorySegment b = NativeMemory.map(size);
                    if (options.touchPinned()) {
                        b.fill((byte) 1);
                    }
                    pinnedBuffers.put(size, b);
                }
                if (options.kinds().contains(RegionKind.ODP)) {
                    odpBuffers.put(size, NativeMemory.map(size));
                }
            }
            // The plan: per bucket one warm-up, then `runs` timed entries, all shuffled.
            List<long[]> plan = new ArrayList<>();
            List<RegionKind> kinds = new ArrayList<>(options.kinds());
            for (int k = 0; k < kinds.size(); k++) {
                for (int s = 0; s < options.sizes().length; s++) {
                    for (int r = 0; r <= options.runs(); r++) {
                        plan.add(new long[]{k, s, r});
                    }
                }
            }
            Random random = new Random(options.seed());
            for (int i = plan.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                long[] t = plan.get(i);
                plan.set(i, plan.get(j));
                plan.set(j, t);
            }
            int buckets = kinds.size() * options.sizes().length;
            long[][] samples = new long[buckets][options.runs()];
            long[][] rssBefore = new long[buckets][options.runs()];
            long[][] rssDuring = new long[buckets][options.runs()];
            int[] counts = new int[buckets];
            int[] failures = new int[buckets];
            int[] errnos = new int[buckets];
            boolean[] warmedUp = new boolean[buckets];
            warmUpJit(table, kinds, pinnedBuffers, odpBuffers, options);
            int done = 0;
            for (long[] step : plan) {
                RegionKind kind = kinds.get((int) step[0]);
                long size = options.sizes()[(int) step[1]];
                int bucket = (int) step[0] * options.sizes().length + (int) step[1];
                MemorySegment buffer = kind == RegionKind.PINNED ? pinnedBuffers.get(size) : odpBuffers.get(size);
                boolean timed = warmedUp[bucket]; // the first entry of a bucket is its warm-up
                warmedUp[bucket] = true;
                int n = counts[bucket];
                if (timed) {
                    rssBefore[bucket][n] = rssKib();
                }
                long t0 = System.nanoTime();
                Region region = null;
                int errno = 0;
                try {
                    region = register(table, kind, buffer);
                } catch (MemoryException e) {
                    errno = e.errno();
                }
                long elapsed = System.nanoTime() - t0;
                if (timed) {
                    samples[bucket][n] = elapsed;
                    rssDuring[bucket][n] = rssKib();
                    counts[bucket]++;
                    if (region == null) {
                        failures[bucket]++;
                        errnos[bucket] = errno;
                    }
                }
                if (region != null) {
                    region.close();
                }
                if (kind == RegionKind.PINNED && !options.touchPinned()) {
                    NativeMemory.release(buffer, 0, Mem.alignUp(size, Mem.PAGE_SIZE));
                }
                done++;
                if (options.progress() != null && done % Math.max(1, plan.size() / 20) == 0) {
                    options.progress().accept("reg-bench: " + done + "/" + plan.size() + " registrations");
                }
            }
            List<Row> rows = new ArrayList<>();
            for (int k = 0; k < kinds.size(); k++) {
                for (int s = 0; s < options.sizes().length; s++) {
                    int b = k * options.sizes().length + s;
                    long[] sorted = sorted(samples[b], counts[b]);
                    rows.add(new Row(kindName(kinds.get(k)), options.sizes()[s], counts[b], rank(sorted, 0.50),
                            rank(sorted, 0.95), rank(sorted, 0.99), rank(sorted, 0), rank(sorted, 1), failures[b],
                            errnos[b], rank(sorted(rssBefore[b], counts[b]), 0.5),
                            rank(sorted(rssDuring[b], counts[b]), 0.5)));
                }
            }
            return rows;
        } finally {
            pinnedBuffers.values().forEach(NativeMemory::unmap);
            odpBuffers.values().forEach(NativeMemory::unmap);
        }
    }

    private static Region register(KeyTable table, RegionKind kind, MemorySegment buffer) {
        return switch (kind) {
            case PINNED -> MemoryRegions.register(table, 1, buffer, Access.LOCAL_WRITE);
            case ODP -> MemoryRegions.register(table, 1, buffer, Access.LOCAL_WRITE | Access.ON_DEMAND);
            case IMPLICIT_ODP -> MemoryRegions.registerImplicit(table, 1, Access.LOCAL_WRITE);
        };
    }

    /**
     * Untimed registrations of each kind at the smallest size, so that the timed ones run compiled
     * code (a C benchmark needs no such step; without it the first buckets would time the JIT).
     */
    private static void warmUpJit(KeyTable table, List<RegionKind> kinds, Map<Long, MemorySegment> pinned,
                                  Map<Long, MemorySegment> odp, Options options) {
        long smallest = Arrays.stream(options.sizes()).min().orElse(4096);
        for (RegionKind kind : kinds) {
            MemorySegment buffer = kind == RegionKind.PINNED ? pinned.get(smallest) : odp.get(smallest);
            for (int i = 0; i < options.jitWarmup(); i++) {
                try {
                    register(table, kind, buffer).close();
                } catch (MemoryException e) {
                    break; // the timed runs record the failure
                }
            }
        }
    }

    private static long[] sorted(long[] values, int count) {
        long[] copy = Arrays.copyOf(values, count);
        Arrays.sort(copy);
        return copy;
    }

    /** Nearest-rank percentile of a sorted sample ({@code q} in [0, 1]); 0 when empty. */
    static long rank(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Cost of one copy on one access path. */
    public record CopyRow(String path, String direction, long sizeBytes, double nsPerCopy) {
    }

    /**
     * Cost of reading and writing {@code size} bytes through each access path (direct on jrxe's
     * allocator, through a shared-arena segment, through the kernel), via pinned regions: the best
     * of five rounds of {@code iterations} copies (a shared machine adds noise, never speed).
     */
    public static List<CopyRow> copyCosts(long[] sizes, int iterations) {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration());
        long max = Arrays.stream(sizes).max().orElse(4096);
        long span = Math.max(max * 16, 1L << 22);
        List<CopyRow> rows = new ArrayList<>();
        MemorySegment nativeMem = NativeMemory.map(span);
        long raw = Mem.mmap(0, span, Mem.PROT_READ | Mem.PROT_WRITE, Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS, -1, 0);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment scoped = arena.allocate(span, 4096);
            MemorySegment buffer = arena.allocate(max, 4096);
            Region[] regions = {
                    MemoryRegions.register(table, 1, nativeMem, Access.LOCAL_WRITE),
                    MemoryRegions.register(table, 1, scoped, Access.LOCAL_WRITE),
                    MemoryRegions.register(table, 1, raw, span, raw, Access.LOCAL_WRITE)};
            String[] names = {"direct", "scoped", "kernel"};
            for (long size : sizes) {
                for (int p = 0; p < regions.length; p++) {
                    Region r = regions[p];
                    long base = r.start();
                    double bestRead = Double.MAX_VALUE;
                    double bestWrite = Double.MAX_VALUE;
                    for (int round = 0; round < 6; round++) { // round 0 warms up; best of the rest
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iterations; i++) {
                            r.read(PD, 0, base + (i & 15) * size, buffer, 0, size);
                        }
                        long t1 = System.nanoTime();
                        for (int i = 0; i < iterations; i++) {
                            r.write(PD, Access.LOCAL_WRITE, base + (i & 15) * size, buffer, 0, size);
                        }
                        long t2 = System.nanoTime();
                        if (round > 0) {
                            bestRead = Math.min(bestRead, (t1 - t0) / (double) iterations);
                            bestWrite = Math.min(bestWrite, (t2 - t1) / (double) iterations);
                        }
                    }
                    rows.add(new CopyRow(names[p], "read", size, bestRead));
                    rows.add(new CopyRow(names[p], "write", size, bestWrite));
                }
            }
            table.deregisterAll();
        } finally {
            NativeMemory.unmap(nativeMem);
            Mem.munmap(raw, span);
        }
        return rows;
    }

    /** Median cost of a first (cold chunk) and a warm 4 KiB write through an implicit ODP key. */
    public record TouchRow(String what, long medianNs) {
    }

    /**
     * First touch on implicit ODP: {@code chunks} writes of 4 KiB, each into a chunk never touched
     * (child creation, CPU page fault, fault bookkeeping), then the same writes again (warm).
     */
    public static List<TouchRow> firstTouch(int chunks) {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration());
        MemorySegment mem = NativeMemory.map(chunks * ODP_CHUNK);
        MemorySegment src = Arena.ofAuto().allocate(4096);
        try {
            Region r = MemoryRegions.registerImplicit(table, 1, Access.LOCAL_WRITE);
            for (int i = 0; i < chunks; i++) { // compile the cold path on another chunk range first
                MemorySegment scratch = NativeMemory.map(ODP_CHUNK);
                r.write(PD, Access.LOCAL_WRITE, scratch.address(), src, 0, 4096);
                r.write(PD, Access.LOCAL_WRITE, scratch.address(), src, 0, 4096);
                NativeMemory.unmap(scratch);
            }
            long[] cold = new long[chunks];
            long[] warm = new long[chunks];
            for (int i = 0; i < chunks; i++) {
                long t0 = System.nanoTime();
                r.write(PD, Access.LOCAL_WRITE, mem.address() + i * ODP_CHUNK, src, 0, 4096);
                cold[i] = System.nanoTime() - t0;
            }
            for (int i = 0; i < chunks; i++) {
                long t0 = System.nanoTime();
                r.write(PD, Access.LOCAL_WRITE, mem.address() + i * ODP_CHUNK, src, 0, 4096);
                warm[i] = System.nanoTime() - t0;
            }
            Arrays.sort(cold);
            Arrays.sort(warm);
            table.deregisterAll();
            return List.of(new TouchRow("implicit first touch 4 KiB (new child)", rank(cold, 0.5)),
                    new TouchRow("implicit warm 4 KiB", rank(warm, 0.5)));
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    private static final Object RSS_LOCK = new Object();
    private static FileChannel statm;
    private static final ByteBuffer STATM_BUFFER = ByteBuffer.allocate(256);

    /**
     * Resident set size of this process in KiB (0 if unknown), from /proc/self/statm through one
     * open channel and one buffer, so sampling it between timed registrations disturbs little.
     */
    public static long rssKib() {
        synchronized (RSS_LOCK) {
            try {
                if (statm == null) {
                    statm = FileChannel.open(Path.of("/proc/self/statm"), StandardOpenOption.READ);
                }
                STATM_BUFFER.clear();
                statm.read(STATM_BUFFER, 0);
                int i = 0;
                int limit = STATM_BUFFER.position();
                while (i < limit && STATM_BUFFER.get(i) != ' ') {
                    i++; // skip the total program size
                }
                long pages = 0;
                for (i++; i < limit && STATM_BUFFER.get(i) >= '0' && STATM_BUFFER.get(i) <= '9'; i++) {
                    pages = pages * 10 + (STATM_BUFFER.get(i) - '0');
                }
                return pages * (Mem.PAGE_SIZE / 1024);
            } catch (IOException e) {
                return 0;
            }
        }
    }
}
