package dev.jrxe.sys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Sizes and field offsets of the Linux 64-bit socket structs, with small accessors. Plain offsets
 * (not VarHandles) keep the hot path simple; each struct's C definition is quoted beside it.
 */
public final class SocketStructs {
    private SocketStructs() {
    }

    private static final ValueLayout.OfInt INT_BE = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    // struct sockaddr_in { sa_family_t sin_family; in_port_t sin_port; struct in_addr sin_addr; char zero[8]; }
    public static final int SOCKADDR_IN_SIZE = 16;

    /** Fills a sockaddr_in; {@code addr} is the big-endian int of the IPv4 address. */
    public static void sockaddrIn(MemorySegment s, long off, int addr, int port) {
        s.set(JAVA_SHORT, off, (short) Sockets.AF_INET);
        s.set(SHORT_BE, off + 2, (short) port);
        s.set(INT_BE, off + 4, addr);
        s.set(JAVA_LONG, off + 8, 0L);
    }

    public static int sockaddrInAddr(MemorySegment s, long off) {
        return s.get(INT_BE, off + 4);
    }

    public static int sockaddrInPort(MemorySegment s, long off) {
        return Short.toUnsignedInt(s.get(SHORT_BE, off + 2));
    }

    // struct iovec { void *iov_base; size_t iov_len; }
    public static final int IOVEC_SIZE = 16;

    public static void iovec(MemorySegment s, long off, MemorySegment base, long len) {
        s.set(ADDRESS, off, base);
        s.set(JAVA_LONG, off + 8, len);
    }

    /** An iovec by address: {@code len} bytes at {@code address} (memory the caller keeps mapped until the call returns). */
    public static void iovecAt(MemorySegment s, long off, long address, long len) {
        s.set(JAVA_LONG, off, address);
        s.set(JAVA_LONG, off + 8, len);
    }

    public static void iovecLength(MemorySegment s, long off, long len) {
        s.set(JAVA_LONG, off + 8, len);
    }

    // struct msghdr { void *msg_name; socklen_t msg_namelen; struct iovec *msg_iov; size_t msg_iovlen;
    //                 void *msg_control; size_t msg_controllen; int msg_flags; }
    public static final int MSG_NAME = 0;
    public static final int MSG_NAMELEN = 8;
    public static final int MSG_IOV = 16;
    public static final int MSG_IOVLEN = 24;
    public static final int MSG_CONTROL = 32;
    public static final int MSG_CONTROLLEN = 40;
    public static final int MSG_FLAGS = 48;
    // struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; }
    public static final int MMSG_LEN = 56;
    public static final int MMSGHDR_SIZE = 64;

    /** Fills the msghdr part of an mmsghdr. */
    public static void msghdr(MemorySegment s, long off, MemorySegment name, int namelen,
                              MemorySegment iov, long iovlen, MemorySegment control, long controllen) {
        s.set(ADDRESS, off + MSG_NAME, name);
        s.set(JAVA_INT, off + MSG_NAMELEN, namelen);
        s.set(ADDRESS, off + MSG_IOV, iov);
        s.set(JAVA_LONG, off + MSG_IOVLEN, iovlen);
        s.set(ADDRESS, off + MSG_CONTROL, control);
        s.set(JAVA_LONG, off + MSG_CONTROLLEN, controllen);
        s.set(JAVA_INT, off + MSG_FLAGS, 0);
        s.set(JAVA_INT, off + MMSG_LEN, 0);
    }

    // struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; unsigned char data[]; }
    public static final int CMSG_HDR = 16;

    /** CMSG_LEN: header plus {@code dataLen}. */
    public static int cmsgLen(int dataLen) {
        return CMSG_HDR + dataLen;
    }

    /** CMSG_SPACE: header plus {@code dataLen} rounded up to 8. */
    public static int cmsgSpace(int dataLen) {
        return CMSG_HDR + ((dataLen + 7) & ~7);
    }

    /** Writes a cmsghdr with an unsigned 16-bit payload (e.g. UDP_SEGMENT). */
    public static void cmsgU16(MemorySegment s, long off, int level, int type, int value) {
        s.set(JAVA_LONG, off, cmsgLen(2));
        s.set(JAVA_INT, off + 8, level);
        s.set(JAVA_INT, off + 12, type);
        s.set(JAVA_SHORT, off + CMSG_HDR, (short) value);
        s.set(JAVA_SHORT, off + CMSG_HDR + 2, (short) 0);
        s.set(JAVA_INT, off + CMSG_HDR + 4, 0);
    }

    public static long cmsgLength(MemorySegment s, long off) {
        return s.get(JAVA_LONG, off);
    }

    public static int cmsgLevel(MemorySegment s, long off) {
        return s.get(JAVA_INT, off + 8);
    }

    public static int cmsgType(MemorySegment s, long off) {
        return s.get(JAVA_INT, off + 12);
    }

    public static int cmsgInt(MemorySegment s, long off) {
        return s.get(JAVA_INT, off + CMSG_HDR);
    }

    // struct pollfd { int fd; short events; short revents; }
    public static final int POLLFD_SIZE = 8;

    public static void pollfd(MemorySegment s, long off, int fd, short events) {
        s.set(JAVA_INT, off, fd);
        s.set(JAVA_SHORT, off + 4, events);
        s.set(JAVA_SHORT, off + 6, (short) 0);
    }

    public static short pollRevents(MemorySegment s, long off) {
        return s.get(JAVA_SHORT, off + 6);
    }

    // struct timespec { time_t tv_sec; long tv_nsec; }
    public static final int TIMESPEC_SIZE = 16;

    public static void timespec(MemorySegment s, long off, long nanos) {
        s.set(JAVA_LONG, off, nanos / 1_000_000_000L);
        s.set(JAVA_LONG, off + 8, nanos % 1_000_000_000L);
    }

    // struct itimerspec { struct timespec it_interval; struct timespec it_value; }
    public static final int ITIMERSPEC_SIZE = 32;

    /** A one-shot itimerspec that expires {@code nanos} from now (relative; 0 disarms). */
    public static void itimerspecOnce(MemorySegment s, long off, long nanos) {
        timespec(s, off, 0);
        timespec(s, off + TIMESPEC_SIZE, nanos);
    }
}
