package dev.jrxe.ib;

/**
 * Memory access flags: rdma-core's {@code enum ibv_access_flags} ({@code IBV_ACCESS_*}) with its
 * values. They are the {@code access} of {@code ibv_reg_mr} / {@code ibv_rereg_mr}, a QP's
 * {@code qp_access_flags} ({@code struct ibv_qp_attr}) and the rights of a memory window bind.
 *
 * <p>Registration, as rxe and the ib core check it: {@link #REMOTE_WRITE} or
 * {@link #REMOTE_ATOMIC} without {@link #LOCAL_WRITE} is EINVAL, and so is a bit jrxe does not
 * implement for regions (among them {@link #ZERO_BASED}) unless it lies in
 * {@link #OPTIONAL_RANGE}, whose bits are ignored. A QP accepts LOCAL_WRITE, the REMOTE_* bits,
 * MW_BIND and the FLUSH_* bits (any other bit: EINVAL from
 * {@link dev.jrxe.verbs.QueuePair#modify}); its responder refuses an RDMA READ, WRITE, atomic or
 * FLUSH its flags do not allow (RC: a NAK, {@link WcStatus#REM_INV_REQ_ERR} at the requester; UC:
 * the message is dropped).
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
 * }</pre>
 */
public final class Access {
    /** {@code IBV_ACCESS_LOCAL_WRITE}: the device may write the memory (receives, READ and atomic results). */
    public static final int LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}: peers may RDMA WRITE (and ATOMIC_WRITE) it; needs LOCAL_WRITE. */
    public static final int REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}: peers may RDMA READ it. */
    public static final int REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}: peers may compare-and-swap / fetch-and-add on it; needs LOCAL_WRITE. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** {@code IBV_ACCESS_MW_BIND}: memory windows may be bound to the region (else the bind fails). */
    public static final int MW_BIND = 1 << 4;
    /** {@code IBV_ACCESS_ZERO_BASED}: a window's remote addresses are offsets from its start (type 2 only). */
    public static final int ZERO_BASED = 1 << 5;
    /** {@code IBV_ACCESS_ON_DEMAND}: on-demand paging: pages are faulted in on first access, not pinned now. */
    public static final int ON_DEMAND = 1 << 6;
    /** {@code IBV_ACCESS_HUGETLB}: huge-page backed ODP memory; explicit ODP only (else EINVAL), then ignored. */
    public static final int HUGETLB = 1 << 7;
    /** {@code IBV_ACCESS_FLUSH_GLOBAL}: peers may FLUSH it with the global-visibility placement type. */
    public static final int FLUSH_GLOBAL = 1 << 8;
    /**
     * {@code IBV_ACCESS_FLUSH_PERSISTENT}: peers may FLUSH it to persistence; a region needs
     * memory mapped shared from a file (else EINVAL).
     */
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /**
     * {@code IBV_ACCESS_RELAXED_ORDERING}, also {@code IBV_ACCESS_OPTIONAL_FIRST}: the first of
     * the optional bits (20..29), which a provider ignores when it does not support them; jrxe
     * ignores them all.
     */
    public static final int RELAXED_ORDERING = 1 << 20;
    /** {@code IBV_ACCESS_OPTIONAL_RANGE}: the mask of the optional bits 20..29. */
    public static final int OPTIONAL_RANGE = 0x3ff << 20;

    private Access() {
    }
}
