package dev.jrxe.verbs;

import dev.jrxe.ib.Rereg;
import dev.jrxe.memory.MemoryException;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.Region;

/**
 * A registered memory region ({@code ibv_mr}), from {@link ProtectionDomain#registerMemory}:
 * pinned (populated and locked at registration), explicit ODP ({@code Access.ON_DEMAND}: pages
 * faulted in on first access) or implicit ODP (address 0, length -1 and ON_DEMAND: the whole
 * address space, in 2 MiB children made on first touch). The transport reaches its memory only
 * through the device's key table; this object is the application's handle.
 *
 * <pre>{@code
 * try (Arena arena = Arena.ofShared()) {      // the memory outlives the region
 *     MemoryRegion mr = pd.registerMemory(arena.allocate(1 << 20, 4096), Access.LOCAL_WRITE | Access.REMOTE_READ);
 *     RemoteBuffer mine = mr.remote(0, 4096); // address, length and rkey for the peer
 *     recvWr.sge(mr, 0, 4096);                // an SGE with its lkey
 *     mr.close();                             // ibv_dereg_mr, before the arena frees the memory
 * }
 * }</pre>
 *
 * <p>Thread safe: the accessors may be read from any thread while {@link #rereg} or
 * {@link #close} (which serialize on the region) run.
 */
public final class MemoryRegion implements AutoCloseable {
    private ProtectionDomain pd;
    private final Region region;
    private boolean closed;

    private MemoryRegion(ProtectionDomain pd, Region region) {
        this.pd = pd;
        this.region = region;
    }

    static MemoryRegion register(ProtectionDomain pd, long addr, long length, long iova, int access) {
        try {
            Region r = MemoryRegions.register(pd.device().keys(), pd.handle(), addr, length, iova, access);
            return new MemoryRegion(pd, r);
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }

    static MemoryRegion register(ProtectionDomain pd, java.lang.foreign.MemorySegment segment, int access) {
        try {
            return new MemoryRegion(pd, MemoryRegions.register(pd.device().keys(), pd.handle(), segment, access));
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }

    /** {@return the region's protection domain (the new one after a {@code CHANGE_PD} rereg)} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return {@code mr->lkey}: the local key, for SGEs of this PD's QPs} */
    public int lkey() {
        return region.lkey();
    }

    /**
     * {@return {@code mr->rkey}: the remote key (the same value as the lkey), or 0 when the access
     * flags allow no remote access (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC, FLUSH_*), as rxe}
     */
    public int rkey() {
        return region.rkey();
    }

    /**
     * {@return the address of the first byte as work requests and peers name it: the iova (the
     * process address unless registered with another iova); 0 for an implicit region}
     */
    public long addr() {
        return region.start();
    }

    /** {@return {@code mr->length} in bytes (-1, i.e. U64_MAX, for an implicit region)} */
    public long length() {
        return region.length();
    }

    /**
     * {@return the {@link dev.jrxe.ib.Access} bits the region was registered (or last
     * re-registered) with, without the optional ones such as RELAXED_ORDERING}
     */
    public int access() {
        return region.access();
    }

    /**
     * The address of {@code [offset, offset + length)} of this region, checked to be inside it
     * (for an implicit region, {@code offset} is the address itself).
     *
     * @param offset bytes from {@link #addr()}
     * @param length bytes of the range
     * @return the address of byte {@code offset}, as an SGE or a peer's work request takes it
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public long addressAt(long offset, long length) {
        long size = length();
        if (size == -1) {
            if (offset < 0 || length < 0) {
                throw new IndexOutOfBoundsException("offset " + offset + ", length " + length);
            }
            return offset;
        }
        java.util.Objects.checkFromIndexSize(offset, length, size);
        return addr() + offset;
    }

    /**
     * {@return the whole region as a buffer a peer can READ, WRITE or apply atomics to, with this
     * rkey (as far as the access flags allow)}
     */
    public RemoteBuffer remote() {
        return new RemoteBuffer(addr(), length(), rkey());
    }

    /**
     * {@code [offset, offset + length)} of this region as a buffer for a peer.
     *
     * @param offset bytes from {@link #addr()} (an address, for an implicit region)
     * @param length bytes
     * @return the range's address and length with this region's rkey
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public RemoteBuffer remote(long offset, long length) {
        return new RemoteBuffer(addressAt(offset, length), length, rkey());
    }

    /** The memory layer's region (kind, counters). */
    Region region() {
        return region;
    }

    /**
     * {@code ibv_rereg_mr}: changes the region's protection domain ({@code Rereg.CHANGE_PD}),
     * access ({@code Rereg.CHANGE_ACCESS}) and/or memory ({@code Rereg.CHANGE_TRANSLATION}, with
     * {@code segment}); the keys stay the same. Everything is validated first: on error nothing
     * has changed. Flags from {@link dev.jrxe.ib.Rereg}.
     *
     * @param flags     an OR of {@code Rereg.CHANGE_*}, not 0
     * @param newPd     the new PD, of the same device (for CHANGE_PD)
     * @param segment   the new native memory, its address the new iova (for CHANGE_TRANSLATION)
     * @param newAccess the new {@link dev.jrxe.ib.Access} bits (for CHANGE_ACCESS; adding or
     *                  removing ON_DEMAND needs CHANGE_TRANSLATION too)
     * @throws VerbsException EINVAL for flags 0 or unknown, a PD of another device, no segment,
     *                        a deregistered region, or ON_DEMAND toggled without
     *                        CHANGE_TRANSLATION; EBUSY while windows or indirect keys use the
     *                        region; errnos of registration for the new access or memory
     */
    public synchronized void rereg(int flags, ProtectionDomain newPd, java.lang.foreign.MemorySegment segment,
                                   int newAccess) {
        if ((flags & dev.jrxe.ib.Rereg.CHANGE_PD) != 0 && (newPd == null || newPd.device() != pd.device())) {
            throw VerbsException.einval("rereg to a protection domain of another device");
        }
        int pdHandle = (flags & dev.jrxe.ib.Rereg.CHANGE_PD) != 0 ? newPd.handle() : 0;
        try {
            if ((flags & dev.jrxe.ib.Rereg.CHANGE_TRANSLATION) != 0) {
                if (segment == null) {
                    throw VerbsException.einval("rereg of the translation needs the new memory");
                }
                MemoryRegions.rereg(region, flags, pdHandle, segment, newAccess);
            } else {
                MemoryRegions.rereg(region, flags, pdHandle, 0, 0, 0, newAccess);
            }
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
        if ((flags & dev.jrxe.ib.Rereg.CHANGE_PD) != 0) {
            pd = newPd;
        }
    }

    /**
     * {@code ibv_dereg_mr}: the keys stop working at once; once accesses in flight finish, pinned
     * pages are unlocked (or ODP children released) and jrxe no longer touches the memory.
     * Closing twice, or after the device closed, is harmless.
     *
     * @throws VerbsException EBUSY while memory windows are bound to it or configured indirect
     *                        keys use it
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!region.isValid()) {
            closed = true; // its device was closed first, which deregistered it
            return;
        }
        try {
            MemoryRegions.deregister(region);
            closed = true;
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }
}
