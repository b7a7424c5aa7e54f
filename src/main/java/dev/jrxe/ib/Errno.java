package dev.jrxe.ib;

/** Linux errno values, as rdma-core reports them. */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSPC = 28;
    public static final int ERANGE = 34;
    public static final int ENOSYS = 38;
    public static final int ETIMEDOUT = 110;
    public static final int EOPNOTSUPP = 95;
    public static final int ENOTSUP = EOPNOTSUPP;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ECONNREFUSED = 111;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;

    private Errno() {
    }

    /** Symbolic name of an errno value, e.g. "EINVAL". */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSPC -> "ENOSPC";
            case ERANGE -> "ERANGE";
            case ENOSYS -> "ENOSYS";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EISCONN -> "EISCONN";
            case ENOTCONN -> "ENOTCONN";
            default -> "errno " + errno;
        };
    }
}
