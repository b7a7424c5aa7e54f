package dev.jrxe.ib;

/** Access flags, with the values of rdma-core's {@code enum ibv_access_flags}. */
public final class Access {
    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 1 << 1;
    public static final int REMOTE_READ = 1 << 2;
    public static final int REMOTE_ATOMIC = 1 << 3;
    public static final int MW_BIND = 1 << 4;
    public static final int ZERO_BASED = 1 << 5;
    public static final int ON_DEMAND = 1 << 6;
    public static final int HUGETLB = 1 << 7;
    public static final int FLUSH_GLOBAL = 1 << 8;
    public static final int FLUSH_PERSISTENT = 1 << 9;
    /** First of the optional bits (20..29): providers ignore those they do not support. */
    public static final int RELAXED_ORDERING = 1 << 20;
    public static final int OPTIONAL_RANGE = 0x3ff << 20;

    private Access() {
    }
}
