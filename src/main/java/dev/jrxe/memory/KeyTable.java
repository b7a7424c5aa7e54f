package dev.jrxe.memory;

import dev.jrxe.ib.Errno;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The keys of one device: key = index &lt;&lt; 8 | 8-bit key, as rxe. What holds for a key that
 * was deregistered (a stale key a peer may still send):
 * <ul>
 *   <li>Its index is not handed out again until every other index of the table (max_mr of them)
 *       has been used once, and after that only in FIFO order of deregistration: with {@code n}
 *       keys live, at least {@code max_mr - n} registrations come between a key's death and the
 *       reuse of its index (524,286 with the default max_mr and one live key).</li>
 *   <li>Each reuse of an index draws its 8-bit key at random (a {@link SecureRandom} unless a
 *       simulation seeds it), never the
 *       value the index had just before (rxe's {@code rxe_get_next_key}). So the first region to
 *       reuse the index never matches the stale key, and every later one matches it with
 *       probability 1/255, independently of the others (KeyTableTest measures it).</li>
 * </ul>
 * Keys are unpredictable to a peer that never saw them (8 random bits, and the index of a
 * region it cannot know), but that is no secret to rely on: the PD, access and range checks are
 * what protect memory. {@link #lookup} is O(1), lock-free and allocation-free; registration and
 * deregistration lock.
 */
public final class KeyTable {
    private static final int PAGE_BITS = 10;
    private static final int PAGE = 1 << PAGE_BITS;

    private final MemoryConfig config;
    private final MemoryCounters counters = new MemoryCounters();
    private final AtomicReferenceArray<AtomicReferenceArray<MemoryKey>> pages;
    /** Per slot: the 8-bit key the index had last, plus one (0: never used). */
    private final int[][] lastKeys;
    /** Freed indices, oldest first; used once every index has been handed out fresh. */
    private final IntFifo freeIndices = new IntFifo();
    private final java.util.random.RandomGenerator random;
    private final byte[] randomBytes = new byte[256];
    private int randomNext = randomBytes.length;
    /** Implicit ODP translations, copied on change so that the periodic reclaim allocates nothing. */
    private volatile OdpTranslation[] implicitTranslations = new OdpTranslation[0];
    private int nextFresh = 1;
    private int used;

    public KeyTable() {
        this(MemoryConfig.fromConfiguration());
    }

    public KeyTable(MemoryConfig config) {
        this(config, new SecureRandom());
    }

    /**
     * A table whose 8-bit keys come from {@code random}: a {@link SecureRandom} in production, a
     * seeded generator where a run must repeat exactly (a simulation).
     */
    public KeyTable(MemoryConfig config, java.util.random.RandomGenerator random) {
        this.config = config;
        this.random = random;
        int pageCount = config.maxMr() / PAGE + 2;
        this.pages = new AtomicReferenceArray<>(pageCount);
        this.lastKeys = new int[pageCount][];
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
        int index = nextFresh <= config.maxMr() ? nextFresh++ : freeIndices.removeFirst();
        int page = index >>> PAGE_BITS;
        if (lastKeys[page] == null) {
            lastKeys[page] = new int[PAGE];
            pages.set(page, new AtomicReferenceArray<>(PAGE));
        }
        int slot = index & (PAGE - 1);
        int key8 = randomKey8(lastKeys[page][slot] - 1);
        lastKeys[page][slot] = key8 + 1;
        used++;
        return index << 8 | key8;
    }

    /** A random 8-bit key other than {@code last} (-1: any). */
    private int randomKey8(int last) {
        int k;
        do {
            if (randomNext == randomBytes.length) {
                random.nextBytes(randomBytes);
                randomNext = 0;
            }
            k = randomBytes[randomNext++] & 0xFF;
        } while (k == last);
        return k;
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
        // a window's key changes with each bind: the next user of the index must avoid the last one
        int index = key >>> 8;
        lastKeys[index >>> PAGE_BITS][index & (PAGE - 1)] = (key & 0xFF) + 1;
        freeIndices.addLast(key >>> 8);
        used--;
    }

    synchronized void trackImplicit(OdpTranslation t) {
        OdpTranslation[] a = implicitTranslations;
        OdpTranslation[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = t;
        implicitTranslations = b;
    }

    synchronized void untrackImplicit(OdpTranslation t) {
        OdpTranslation[] a = implicitTranslations;
        implicitTranslations = java.util.Arrays.stream(a).filter(x -> x != t).toArray(OdpTranslation[]::new);
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

    /** Keys (regions, windows, indirect keys) registered in this protection domain now. */
    public synchronized int countForPd(int pdHandle) {
        int n = 0;
        for (int p = 0; p < pages.length(); p++) {
            AtomicReferenceArray<MemoryKey> slots = pages.get(p);
            for (int i = 0; slots != null && i < PAGE; i++) {
                MemoryKey k = slots.get(i);
                if (k != null && k.pdHandle() == pdHandle) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Destroys every indirect key and memory window, then deregisters every region (device close). */
    public void deregisterAll() {
        List<Region> regions = new ArrayList<>();
        List<MemoryWindow> windows = new ArrayList<>();
        List<IndirectKey> indirect = new ArrayList<>();
        synchronized (this) {
            for (int p = 0; p < pages.length(); p++) {
                AtomicReferenceArray<MemoryKey> slots = pages.get(p);
                for (int i = 0; slots != null && i < PAGE; i++) {
                    MemoryKey k = slots.get(i);
                    if (k instanceof Region r) {
                        regions.add(r);
                    } else if (k instanceof MemoryWindow w) {
                        windows.add(w);
                    } else if (k instanceof IndirectKey ik) {
                        indirect.add(ik);
                    }
                }
            }
        }
        for (IndirectKey ik : indirect) {
            IndirectKeys.destroy(ik); // idempotent: the key's own close may run at the same time
        }
        for (MemoryWindow w : windows) {
            try {
                MemoryWindows.dealloc(w);
            } catch (MemoryException e) {
                // deallocated meanwhile by its own close
            }
        }
        for (Region r : regions) {
            if (r.isValid()) {
                MemoryRegions.deregister(r);
            }
        }
    }

    /** A FIFO of ints that grows as needed (no boxing). */
    private static final class IntFifo {
        private int[] items = new int[64];
        private int head;
        private int size;

        void addLast(int v) {
            if (size == items.length) {
                int[] bigger = new int[items.length * 2];
                for (int i = 0; i < size; i++) {
                    bigger[i] = items[(head + i) % items.length];
                }
                items = bigger;
                head = 0;
            }
            items[(head + size) % items.length] = v;
            size++;
        }

        int removeFirst() {
            if (size == 0) {
                throw new IllegalStateException("no free index");
            }
            int v = items[head];
            head = (head + 1) % items.length;
            size--;
            return v;
        }
    }
}
