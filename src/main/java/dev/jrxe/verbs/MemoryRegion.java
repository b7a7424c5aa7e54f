package dev.jrxe.verbs;

import dev.jrxe.ib.Rereg;
import dev.jrxe.memory.MemoryException;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.Region;

/**
 * A registered memory region ({@code ibv_mr}): pinned, explicit ODP or implicit ODP, per its
 * access flags. The transport reaches its memory only through the key table; this object is the
 * application's handle.
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

    public ProtectionDomain pd() {
        return pd;
    }

    public int lkey() {
        return region.lkey();
    }

    public int rkey() {
        return region.rkey();
    }

    /** Start address (0 for an implicit region). */
    public long addr() {
        return region.start();
    }

    /** Length in bytes (-1, i.e. U64_MAX, for an implicit region). */
    public long length() {
        return region.length();
    }

    public int access() {
        return region.access();
    }

    /**
     * The address of {@code [offset, offset + length)} of this region, checked to be inside it
     * (for an implicit region, {@code offset} is the address itself).
     *
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

    /** The whole region as a buffer a peer can READ, WRITE or apply atomics to (with this rkey). */
    public RemoteBuffer remote() {
        return new RemoteBuffer(addr(), length(), rkey());
    }

    /**
     * {@code [offset, offset + length)} of this region as a buffer for a peer.
     *
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

    /** {@code ibv_dereg_mr}. */
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
