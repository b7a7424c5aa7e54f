package dev.jrxe.memory;

import dev.jrxe.sys.Errno;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The keys of one device: key = index &lt;&lt; 8 | 8-bit key, as rxe. Each reuse of an index gets
 * the next 8-bit key, and freed indices wait in a FIFO behind at least {@value #REUSE_DISTANCE}
 * others, so a stale key does not match a new region (a collision needs 256 reuses of one index).
 * {@link #lookup} is O(1), lock-free and allocation-free; registration and deregistration lock.
 */
public final class KeyTable {
    private static final int PAGE_BITS = 10;
    private static final int PAGE = 1 << PAGE_BITS;
    static final int REUSE_DISTANCE = 16;

    private final MemoryConfig config;
    private final MemoryCounters counters = new MemoryCounters();
    private final AtomicReferenceArray<AtomicReferenceArray<MemoryKey>> pages;
    private final int[][] generations;
    private final ArrayDeque<Integer> freeIndices = new ArrayDeque<>();
    private final Set<OdpTranslation> implicitTranslations = ConcurrentHashMap.newKeySet();
    private int nextFresh = 1;
    private int used;

    public KeyTable() {
        this(MemoryConfig.fromConfiguration());
    }

    public KeyTable(MemoryConfig config) {
        this.config = config;
        int pageCount = config.maxMr() / PAGE + 2;
        this.pages = new AtomicReferenceArray<>(pageCount);
        this.generations = new int[pageCount][];
    }

    public MemoryConfig config() {
        return config;
    }

    public MemoryCounters counters() {
        return counters;
    }

    /** The key with exactly this value (index and 8-bit key), or null. Lock-free, no allocation. */
    public MemoryKey lookup(int key) {
        int index = key >>> 8;
        int page = index >>> PAGE_BITS;
        if (index == 0 || page >= pages.length()) {
            return null;
        }
        AtomicReferenceArray<MemoryKey> slots = pages.get(page);
        if (slots == null) {
            return null;
        }
        MemoryKey k = slots.get(index & (PAGE - 1));
        return k != null && k.key() == key ? k : null;
    }

    /** Keys in use. */
    public synchronized int size() {
        return used;
    }

    /** Most keys at once (max_mr). */
    public int capacity() {
        return config.maxMr();
    }

    /**
     * Reserves a key (index and fresh 8-bit key) for an object about to be published.
     *
     * @throws MemoryException ENOMEM when {@link #capacity()} keys are in use
     */
    synchronized int reserve() {
        if (used >= config.maxMr()) {
            throw new MemoryException(Errno.ENOMEM, "max_mr (" + config.maxMr() + ") regions already registered");
        }
        int index;
        if (freeIndices.size() >= REUSE_DISTANCE || nextFresh > config.maxMr()) {
            index = freeIndices.removeFirst();
        } else {
            index = nextFresh++;
        }
        int page = index >>> PAGE_BITS;
        if (generations[page] == null) {
            generations[page] = new int[PAGE];
            pages.set(page, new AtomicReferenceArray<>(PAGE));
        }
        int slot = index & (PAGE - 1);
        int key8 = (generations[page][slot] + 1 + (index * 0x3b)) & 0xff;
        generations[page][slot]++;
        used++;
        return index << 8 | key8;
    }

    /** Makes a reserved key visible to {@link #lookup}. */
    synchronized void publish(int key, MemoryKey value) {
        int index = key >>> 8;
        pages.get(index >>> PAGE_BITS).set(index & (PAGE - 1), value);
    }

    /** Hides a key from lookups (its index is not reusable until {@link #free}). */
    synchronized void unpublish(int key) {
        int index = key >>> 8;
        AtomicReferenceArray<MemoryKey> slots = pages.get(index >>> PAGE_BITS);
        MemoryKey current = slots.get(index & (PAGE - 1));
        if (current != null && current.key() == key) {
            slots.set(index & (PAGE - 1), null);
        }
    }

    /** Returns a reserved or unpublished key's index to the free FIFO. */
    synchronized void free(int key) {
        unpublish(key);
        freeIndices.addLast(key >>> 8);
        used--;
    }

    void trackImplicit(OdpTranslation t) {
        implicitTranslations.add(t);
    }

    void untrackImplicit(OdpTranslation t) {
        implicitTranslations.remove(t);
    }

    /**
     * Reclaims implicit ODP children idle longer than {@link MemoryConfig#childIdleNanos()} in
     * every implicit region of this table (the device's background thread calls it now and then;
     * child creation also does, at most every half idle period). Returns how many were reclaimed.
     */
    public int reclaimIdleChildren() {
        int n = 0;
        for (OdpTranslation t : implicitTranslations) {
            n += t.reclaimIdle();
        }
        return n;
    }

    /** Deregisters every region (device close). */
    public void deregisterAll() {
        List<Region> regions = new ArrayList<>();
        synchronized (this) {
            for (int p = 0; p < pages.length(); p++) {
                AtomicReferenceArray<MemoryKey> slots = pages.get(p);
                for (int i = 0; slots != null && i < PAGE; i++) {
                    if (slots.get(i) instanceof Region r) {
                        regions.add(r);
                    }
                }
            }
        }
        for (Region r : regions) {
            if (r.isValid()) {
                MemoryRegions.deregister(r);
            }
        }
    }
}
