package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

/**
 * Validation of registration parameters, with rdma-core's (ib core's) errnos. jrxe's choices where
 * rxe differs are documented on each rule.
 */
final class AccessRules {
    /** Access bits jrxe implements for memory regions. */
    static final int SUPPORTED = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
            | Access.REMOTE_ATOMIC | Access.MW_BIND | Access.ON_DEMAND | Access.HUGETLB
            | Access.FLUSH_GLOBAL | Access.FLUSH_PERSISTENT;
    /** One past the highest user-space address (x86-64 with 4-level paging, TASK_SIZE). */
    static final long USER_END = 0x7ffffffff000L;

    private AccessRules() {
    }

    /**
     * Checks access flags and returns them with the optional bits (20..29) cleared.
     * <ul>
     *   <li>REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE: EINVAL (ib_check_mr_access).</li>
     *   <li>Any bit outside {@link #SUPPORTED} and outside the optional range: EINVAL. This
     *       includes ZERO_BASED (a memory-window bind flag) and bits 10..19, 30, 31. rxe answers
     *       EOPNOTSUPP for bits the core knows but rxe does not; jrxe uses EINVAL throughout.</li>
     *   <li>Optional bits (RELAXED_ORDERING etc.) are ignored, as providers must.</li>
     * </ul>
     */
    static int validate(int access) {
        int a = access & ~Access.OPTIONAL_RANGE;
        if ((a & ~SUPPORTED) != 0) {
            throw new MemoryException(Errno.EINVAL, "unsupported access bits 0x" + Integer.toHexString(a & ~SUPPORTED));
        }
        if ((a & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (a & Access.LOCAL_WRITE) == 0) {
            throw new MemoryException(Errno.EINVAL, "REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
        }
        return a;
    }

    static boolean isImplicit(long addr, long length) {
        return addr == 0 && length == -1L;
    }

    /**
     * Checks a range for registration with validated {@code access}.
     * <ul>
     *   <li>Implicit form (addr 0, length U64_MAX): needs ON_DEMAND (else EINVAL: the range
     *       overflows), iova 0 (else EINVAL, as rxe), no HUGETLB (EINVAL: explicit mode only).
     *       Remote access bits are accepted: jrxe serves every operation on implicit memory.</li>
     *   <li>Length 0, address or iova + length overflowing, or iova and address in different page
     *       offsets: EINVAL. A range beyond user space: EFAULT.</li>
     *   <li>HUGETLB without ON_DEMAND: EINVAL (it only applies to explicit ODP; jrxe accepts it
     *       there and ignores it: its pages are tracked at 4 KiB either way).</li>
     * </ul>
     */
    static void validateRange(long addr, long length, long iova, int access) {
        boolean odp = (access & Access.ON_DEMAND) != 0;
        if (isImplicit(addr, length)) {
            if (!odp) {
                throw new MemoryException(Errno.EINVAL, "length U64_MAX needs ON_DEMAND (implicit ODP)");
            }
            if (iova != 0) {
                throw new MemoryException(Errno.EINVAL, "implicit ODP needs iova 0");
            }
            if ((access & Access.HUGETLB) != 0) {
                throw new MemoryException(Errno.EINVAL, "HUGETLB applies to explicit ODP only");
            }
            return;
        }
        if (length <= 0) {
            throw new MemoryException(Errno.EINVAL, "bad length " + Long.toUnsignedString(length));
        }
        if (Long.compareUnsigned(addr + length, addr) < 0 || Long.compareUnsigned(iova + length, iova) < 0) {
            throw new MemoryException(Errno.EINVAL, "range overflows");
        }
        if (((addr ^ iova) & (Mem.PAGE_SIZE - 1)) != 0) {
            throw new MemoryException(Errno.EINVAL, "iova and address differ in page offset");
        }
        if ((access & Access.HUGETLB) != 0 && !odp) {
            throw new MemoryException(Errno.EINVAL, "HUGETLB applies to explicit ODP only");
        }
        if (addr == 0 || Long.compareUnsigned(addr + length, USER_END) > 0) {
            throw new MemoryException(Errno.EFAULT, "range outside user space");
        }
        if ((access & Access.FLUSH_PERSISTENT) != 0 && !FileMappings.sharedFileBacked(addr, length)) {
            // rxe: EINVAL unless every page is persistent memory; jrxe's persistence is a shared
            // file mapping that msync writes back
            throw new MemoryException(Errno.EINVAL, "FLUSH_PERSISTENT needs memory mapped shared from a file");
        }
    }

    static boolean writable(int access) {
        return (access & (Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0;
    }
}
