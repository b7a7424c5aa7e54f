package dev.jrxe.memory;

import dev.jrxe.ib.Rereg;
import dev.jrxe.ib.Advice;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Registration, re-registration, deregistration and advise (prefetch) of memory regions: the
 * control path behind ibv_reg_mr, ibv_rereg_mr, ibv_dereg_mr and ibv_advise_mr. Failures throw
 * {@link MemoryException} with rdma-core's errno; nothing is left behind by a failed call.
 *
 * <p>Kinds: without ON_DEMAND a region is pinned (populated and locked now); with ON_DEMAND and a
 * range it is explicit ODP (no page work now); with ON_DEMAND, address 0 and length U64_MAX (-1L)
 * it is implicit ODP over the whole address space.
 */
public final class MemoryRegions {
    /** Length that, with address 0 and ON_DEMAND, asks for implicit ODP (U64_MAX). */
    public static final long IMPLICIT_LENGTH = -1L;

    private MemoryRegions() {
    }

    /**
     * Registers a native segment with iova = its address.
     *
     * @see #register(KeyTable, int, MemorySegment, long, int)
     */
    public static Region register(KeyTable table, int pdHandle, MemorySegment segment, int access) {
        return register(table, pdHandle, segment, segment.address(), access);
    }

    /**
     * Registers a native segment. Accessing the memory goes through the segment when the FFM
     * runtime guards it for all threads (shared or automatic arenas), directly when it is
     * {@link NativeMemory} memory, else through the kernel (see {@link SafeAccess}).
     *
     * @throws MemoryException EINVAL for a heap segment, bad access flags or range; EFAULT for a
     *                         read-only segment registered writable or memory that is not mapped
     *                         (pinned); ENOMEM when pinning fails or max_mr is reached
     */
    public static Region register(KeyTable table, int pdHandle, MemorySegment segment, long iova, int access) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new MemoryException(Errno.EINVAL, "only native segments can be registered");
        }
        int a = AccessRules.validate(access);
        if (segment.isReadOnly() && AccessRules.writable(a)) {
            throw new MemoryException(Errno.EFAULT, "read-only segment registered with write access");
        }
        return registerChecked(table, pdHandle, segment.address(), segment.byteSize(), iova, a, segment);
    }

    /**
     * Registers {@code [addr, addr+length)} with key addresses starting at {@code iova}; addr 0 with
     * length {@link #IMPLICIT_LENGTH} and ON_DEMAND registers implicit ODP.
     *
     * @throws MemoryException as {@link #register(KeyTable, int, MemorySegment, long, int)}
     */
    public static Region register(KeyTable table, int pdHandle, long addr, long length, long iova, int access) {
        return registerChecked(table, pdHandle, addr, length, iova, AccessRules.validate(access), null);
    }

    /** Registers implicit ODP: {@code register(table, pd, 0, U64_MAX, 0, access | ON_DEMAND)}. */
    public static Region registerImplicit(KeyTable table, int pdHandle, int access) {
        return register(table, pdHandle, 0, IMPLICIT_LENGTH, 0, access | Access.ON_DEMAND);
    }

    private static Region registerChecked(KeyTable table, int pdHandle, long addr, long length, long iova,
                                          int access, MemorySegment segment) {
        AccessRules.validateRange(addr, length, iova, access);
        int key = table.reserve();
        try {
            Translation t = translate(table, addr, length, iova, access, segment);
            Region r = new Region(table, key, pdHandle, access, t);
            table.publish(key, r);
            return r;
        } catch (RuntimeException e) {
            table.free(key);
            throw e;
        }
    }

    private static Translation translate(KeyTable table, long addr, long length, long iova, int access,
                                         MemorySegment segment) {
        if (AccessRules.isImplicit(addr, length)) {
            return OdpTranslation.implicit(table);
        }
        if ((access & Access.ON_DEMAND) != 0) {
            return OdpTranslation.explicit(table, iova, addr, length, segment);
        }
        return PinnedTranslation.create(table, iova, addr, length, segment, AccessRules.writable(access));
    }

    /**
     * Deregisters: the key stops resolving at once, in-flight accesses finish, then pages are
     * unpinned (pinned) or children released (ODP). After it returns jrxe no longer touches the
     * memory.
     *
     * @throws MemoryException EINVAL if already deregistered, EBUSY while memory windows are bound
     */
    public static void deregister(Region region) {
        synchronized (region) {
            if (!region.valid) {
                throw new MemoryException(Errno.EINVAL, "region already deregistered");
            }
            if (region.keyHolds > 0) {
                // man ibv_dereg_mr: fails while memory windows are bound to it
                throw new MemoryException(Errno.EBUSY, region.keyHolds
                    + " memory window binding(s) or indirect key entries still use it");
            }
            region.valid = false;
            region.table().unpublish(region.key());
            region.translation().close();
            region.table().free(region.key());
        }
    }

    /**
     * ibv_rereg_mr with an address range; the key stays the same. Everything is validated before
     * anything changes.
     * <ul>
     *   <li>flags 0 or unknown: EINVAL; a deregistered region: EINVAL.</li>
     *   <li>CHANGE_ACCESS: the access rules of registration; without CHANGE_TRANSLATION it may not
     *       add or remove ON_DEMAND (EINVAL); adding write access to a pinned region populates
     *       for writing (EFAULT if the memory is read-only).</li>
     *   <li>CHANGE_TRANSLATION: a new range (and possibly kind) exactly as registration would
     *       build it; the old translation is closed after the new one is in place.</li>
     *   <li>CHANGE_PD: the new PD handle.</li>
     * </ul>
     */
    public static void rereg(Region region, int flags, int pdHandle, long addr, long length, long iova, int access) {
        rereg(region, flags, pdHandle, addr, length, iova, access, null);
    }

    /** ibv_rereg_mr with a segment for CHANGE_TRANSLATION (iova = segment address). */
    public static void rereg(Region region, int flags, int pdHandle, MemorySegment segment, int access) {
        Objects.requireNonNull(segment, "segment");
        if (!segment.isNative()) {
            throw new MemoryException(Errno.EINVAL, "only native segments can be registered");
        }
        rereg(region, flags, pdHandle, segment.address(), segment.byteSize(), segment.address(), access, segment);
    }

    private static void rereg(Region region, int flags, int pdHandle, long addr, long length, long iova, int access,
                              MemorySegment segment) {
        if (flags == 0 || (flags & ~Rereg.SUPPORTED) != 0) {
            throw new MemoryException(Errno.EINVAL, "bad rereg flags 0x" + Integer.toHexString(flags));
        }
        synchronized (region) {
            if (!region.valid) {
                throw new MemoryException(Errno.EINVAL, "region is deregistered");
            }
            if (region.keyHolds > 0) {
                // a window's binding rests on the region's PD, rights and memory: none may change under it
                throw new MemoryException(Errno.EBUSY, region.keyHolds
                    + " memory window binding(s) or indirect key entries still use it");
            }
            int newAccess = (flags & Rereg.CHANGE_ACCESS) != 0 ? AccessRules.validate(access) : region.access();
            Translation old = region.translation();
            Translation fresh = null;
            if ((flags & Rereg.CHANGE_TRANSLATION) != 0) {
                if (segment != null && segment.isReadOnly() && AccessRules.writable(newAccess)) {
                    throw new MemoryException(Errno.EFAULT, "read-only segment registered with write access");
                }
                AccessRules.validateRange(addr, length, iova, newAccess);
                fresh = translate(region.table(), addr, length, iova, newAccess, segment);
            } else if ((flags & Rereg.CHANGE_ACCESS) != 0) {
                boolean odpNow = old.kind() != RegionKind.PINNED;
                if (odpNow != ((newAccess & Access.ON_DEMAND) != 0)) {
                    throw new MemoryException(Errno.EINVAL, "ON_DEMAND can change only with CHANGE_TRANSLATION");
                }
                AccessRules.validateRange(old.address, old.length, old.iova, newAccess);
                if (AccessRules.writable(newAccess) && !AccessRules.writable(region.access())) {
                    if (old.segment != null && old.segment.isReadOnly()) {
                        throw new MemoryException(Errno.EFAULT, "read-only segment cannot become writable");
                    }
                    int err = old.allowWrite();
                    if (err != 0) {
                        throw new MemoryException(err, "memory cannot be made writable");
                    }
                }
            }
            // PD, access and memory switch in one write: a concurrent key check sees either the
            // old binding or the new one, never a mix
            int newPd = (flags & Rereg.CHANGE_PD) != 0 ? pdHandle : region.pdHandle();
            region.bind(new Region.Binding(newPd, newAccess, fresh != null ? fresh : old));
            if (fresh != null) {
                old.close();
            }
        }
    }

    /**
     * ibv_advise_mr. Validation happens now for every range; the page work happens now with
     * {@link Advice#FLAG_FLUSH}, else on a background thread (best effort, errors dropped).
     * Errnos as man ibv_advise_mr:
     * <ul>
     *   <li>advice other than PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT: EOPNOTSUPP (ENOTSUP).</li>
     *   <li>flags other than FLAG_FLUSH, or no ranges: EINVAL.</li>
     *   <li>an lkey that is not a region of this table and PD, or not ODP, or PREFETCH_WRITE
     *       without LOCAL_WRITE ("invalid or with wrong write access"): EFAULT.</li>
     *   <li>a range outside the region, or (synchronous) memory that is not mapped: EFAULT.</li>
     * </ul>
     */
    public static void advise(KeyTable table, int pdHandle, int advice, int flags, PrefetchRange... ranges) {
        if (advice != Advice.PREFETCH && advice != Advice.PREFETCH_WRITE && advice != Advice.PREFETCH_NO_FAULT) {
            throw new MemoryException(Errno.EOPNOTSUPP, "unsupported advice " + advice);
        }
        if ((flags & ~Advice.FLAG_FLUSH) != 0) {
            throw new MemoryException(Errno.EINVAL, "bad advise flags 0x" + Integer.toHexString(flags));
        }
        if (ranges == null || ranges.length == 0) {
            throw new MemoryException(Errno.EINVAL, "no ranges");
        }
        Region[] regions = new Region[ranges.length];
        for (int i = 0; i < ranges.length; i++) {
            PrefetchRange range = ranges[i];
            if (!(table.lookup(range.lkey()) instanceof Region r) || r.pdHandle() != pdHandle) {
                throw new MemoryException(Errno.EFAULT, "invalid lkey 0x" + Integer.toHexString(range.lkey()));
            }
            if (!r.isOnDemand()) {
                throw new MemoryException(Errno.EFAULT, "lkey 0x" + Integer.toHexString(range.lkey()) + " is not ODP");
            }
            if (advice == Advice.PREFETCH_WRITE && (r.access() & Access.LOCAL_WRITE) == 0) {
                throw new MemoryException(Errno.EFAULT, "PREFETCH_WRITE on a region without LOCAL_WRITE");
            }
            if (range.length() < 0 || !r.translation().inRange(range.addr(), range.length())) {
                throw new MemoryException(Errno.EFAULT, "range outside the region");
            }
            regions[i] = r;
        }
        if ((flags & Advice.FLAG_FLUSH) != 0) {
            for (int i = 0; i < ranges.length; i++) {
                int err = regions[i].translation().prefetch(ranges[i].addr(), ranges[i].length(), advice);
                if (err != 0) {
                    throw new MemoryException(err, "prefetch failed");
                }
            }
            return;
        }
        Prefetcher.submit(() -> {
            for (int i = 0; i < ranges.length; i++) {
                if (regions[i].isValid()) {
                    regions[i].translation().prefetch(ranges[i].addr(), ranges[i].length(), advice);
                }
            }
        });
    }
}
