package dev.jrxe.sim;

import dev.jrxe.memory.NativeMemory;
import dev.jrxe.sys.Mem;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated applications' memory, mapped at the same addresses in every run: addresses travel
 * in RDMA headers, so a run can only repeat byte for byte (and give the same digest) if they do.
 * Either jrxe's allocator ({@link NativeMemory}, accessed directly) or plain anonymous memory seen
 * through a shared arena's segment (accessed through the segment, as an application's arena
 * memory is). Where an address is taken (another run of this JVM still holds it), the memory goes
 * wherever the kernel puts it and {@link #fixed} turns false.
 */
final class SimMemory {
    /** Far from where the JVM maps anything. */
    private static final long BASE = 0x5A00_0000_0000L;
    private static final long STEP = 16L << 20;
    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> owned = new ArrayList<>();
    private final List<long[]> raw = new ArrayList<>();
    private long next = BASE;
    boolean fixed = true;

    /** {@code bytes} (at most 14 MiB) of zeroed memory; {@code allocator}: jrxe's allocator, else an arena segment. */
    @SuppressWarnings("restricted") // the segment spans exactly the new mapping, and lives as long as the arena
    MemorySegment allocate(long bytes, boolean allocator) {
        long at = next;
        next += STEP;
        if (allocator) {
            MemorySegment m = NativeMemory.mapAt(at, bytes);
            if (m == null) {
                fixed = false;
                m = NativeMemory.map(bytes);
            }
            owned.add(m);
            return m;
        }
        long length = Mem.alignUp(bytes, Mem.PAGE_SIZE);
        int prot = Mem.PROT_READ | Mem.PROT_WRITE;
        int flags = Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_NORESERVE;
        long r = Mem.mmap(at, length, prot, flags | Mem.MAP_FIXED_NOREPLACE, -1, 0);
        if (r != at) {
            if (r > 0) {
                Mem.munmap(r, length);
            }
            fixed = false;
            r = Mem.mmap(0, length, prot, flags, -1, 0);
            if (r < 0) {
                throw new IllegalStateException("mmap of " + length + " bytes failed: errno " + -r);
            }
        }
        raw.add(new long[] {r, length});
        return MemorySegment.ofAddress(r).reinterpret(bytes, arena, null);
    }

    /** After the devices are closed: unmaps everything. */
    void release() {
        arena.close();
        for (MemorySegment m : owned) {
            NativeMemory.unmap(m);
        }
        for (long[] r : raw) {
            Mem.munmap(r[0], r[1]);
        }
    }
}
