package dev.jrxe.sys;

import dev.jrxe.ib.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * FFM bindings to the Linux (x86-64/aarch64) socket calls the batched link needs: socket, bind,
 * setsockopt, sendmmsg, recvmmsg, ppoll, eventfd, timerfd. Calls that can fail return {@code -errno}
 * instead of -1, so callers need no thread-local errno; the errno is captured into a per-caller
 * {@link #newCallState call state} segment.
 *
 * <p>The per-packet calls avoid errno capture: the JDK slices the capture segment on every call,
 * an allocation that only disappears when the JIT inlines the whole downcall. {@link #recvmmsg}
 * and {@link #ppoll} report failure as -1 without errno (the receive path treats EAGAIN, EINTR
 * and errors alike: nothing now); a failed {@link #sendmmsg}, which sent nothing, is made once
 * more with capture to learn its errno.
 *
 * <p>Struct layouts live in {@link SocketStructs}.
 */
public final class Sockets {
    // ------------------------------------------------------------ constants (Linux, <sys/socket.h> etc.)
    public static final int AF_INET = 2;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;

    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    /** Send UDP datagrams with checksum 0 (IPv4 only; not allowed together with UDP GSO). */
    public static final int SO_NO_CHECK = 11;
    /** Several sockets may bind one address and port; the kernel spreads datagrams over them. */
    public static final int SO_REUSEPORT = 15;
    /** A classic-BPF program that picks the socket of a SO_REUSEPORT group for each datagram. */
    public static final int SO_ATTACH_REUSEPORT_CBPF = 51;
    public static final int SO_SNDBUFFORCE = 32;
    public static final int SO_RCVBUFFORCE = 33;

    public static final int IPPROTO_IP = 0;
    public static final int IP_MTU_DISCOVER = 10;
    public static final int IP_MULTICAST_IF = 32;
    /** Always set DF; an unconnected socket then sends IPv4 Identification 0. */
    public static final int IP_PMTUDISC_DO = 2;

    public static final int SOL_UDP = 17;
    /** UDP GSO: payload is cut into segments of this many bytes (u16 cmsg or int sockopt). */
    public static final int UDP_SEGMENT = 103;
    /** UDP GRO: receive coalesced datagrams with a cmsg (int) giving the segment size. */
    public static final int UDP_GRO = 104;
    /** Kernel limit of segments per GSO send on older kernels (6.x allows 128). */
    public static final int UDP_MAX_SEGMENTS = 64;

    public static final int MSG_CTRUNC = 0x8;
    public static final int MSG_TRUNC = 0x20;
    public static final int MSG_DONTWAIT = 0x40;

    public static final short POLLIN = 0x1;
    public static final short POLLOUT = 0x4;
    public static final short POLLERR = 0x8;

    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;

    public static final int CLOCK_MONOTONIC = 1;
    public static final int TFD_NONBLOCK = 0x800;
    public static final int TFD_CLOEXEC = 0x80000;

    // ------------------------------------------------------------ socket errno values (beside Errno's)
    public static final int EMSGSIZE = 90;
    public static final int ENOPROTOOPT = 92;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENOBUFS = 105;
    public static final int ECONNREFUSED = 111;

    // ------------------------------------------------------------ bindings
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle SOCKET = bind("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = bind("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKNAME = bind("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SETSOCKOPT = bind("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = bind("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final FunctionDescriptor SENDMMSG_FD = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT);
    private static final MethodHandle SENDMMSG = bind("sendmmsg", SENDMMSG_FD);
    private static final MethodHandle SENDMMSG_FAST = bindNoErrno("sendmmsg", SENDMMSG_FD);
    private static final MethodHandle RECVMMSG_FAST = bindNoErrno("recvmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle PPOLL_FAST = bindNoErrno("ppoll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle TIMERFD_CREATE = bind("timerfd_create", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle TIMERFD_SETTIME_FAST = bindNoErrno("timerfd_settime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle READ_FAST = bindNoErrno("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    /** write(2) without errno capture: used by {@link #signal} from any thread. */
    private static final MethodHandle WRITE_NO_ERRNO = bindNoErrno("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));

    /** The 8-byte value 1, written to an eventfd to signal it; read-only after class init. */
    private static final MemorySegment ONE = Arena.global().allocate(JAVA_LONG);

    static {
        ONE.set(JAVA_LONG, 0, 1L);
    }

    private Sockets() {
    }

    private static MethodHandle bind(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), fd, CAPTURE_ERRNO);
    }

    private static MethodHandle bindNoErrno(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), fd);
    }

    private static volatile Boolean available;

    /** True when this JVM can make the calls here (Linux on a 64-bit platform with native access). */
    public static boolean available() {
        Boolean a = available;
        if (a == null) {
            a = probe();
            available = a;
        }
        return a;
    }

    private static boolean probe() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            return false;
        }
        try {
            MemorySegment state = newCallState(Arena.global());
            int fd = eventfd(state, 0, EFD_CLOEXEC | EFD_NONBLOCK);
            if (fd < 0) {
                return false;
            }
            close(state, fd);
            return true;
        } catch (IllegalCallerException | UnsupportedOperationException | LinkageError e) {
            return false;
        }
    }

    /** A segment that receives errno after each call; one per thread that makes calls. */
    public static MemorySegment newCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static int result(int r, MemorySegment state) {
        return r >= 0 ? r : -errno(state);
    }

    /** socket(2); returns the fd or -errno. */
    public static int socket(MemorySegment state, int domain, int type, int protocol) {
        try {
            return result((int) SOCKET.invokeExact(state, domain, type, protocol), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** bind(2) to a sockaddr of {@code len} bytes; returns 0 or -errno. */
    public static int bind(MemorySegment state, int fd, MemorySegment addr, int len) {
        try {
            return result((int) BIND.invokeExact(state, fd, addr, len), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** getsockname(2) into {@code addr}; {@code lenInOut} is a socklen_t; returns 0 or -errno. */
    public static int getsockname(MemorySegment state, int fd, MemorySegment addr, MemorySegment lenInOut) {
        try {
            return result((int) GETSOCKNAME.invokeExact(state, fd, addr, lenInOut), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** setsockopt(2) with an int value; returns 0 or -errno. {@code scratch} holds at least 4 bytes. */
    public static int setsockopt(MemorySegment state, int fd, int level, int name, int value, MemorySegment scratch) {
        scratch.set(JAVA_INT, 0, value);
        try {
            return result((int) SETSOCKOPT.invokeExact(state, fd, level, name, scratch, 4), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * setsockopt(2) with a {@code struct sock_fprog} of the classic-BPF instructions in
     * {@code program} (each a long: code in bits 48-63, jt 40-47, jf 32-39, k 0-31); returns 0 or
     * -errno. The program and its header are written into {@code scratch}, which holds at least
     * {@code 16 + 8 * program.length} bytes.
     */
    public static int setsockoptFilter(MemorySegment state, int fd, int level, int name, long[] program,
                                       MemorySegment scratch) {
        MemorySegment insns = scratch.asSlice(16, 8L * program.length);
        for (int i = 0; i < program.length; i++) {
            long in = program[i];
            insns.set(JAVA_SHORT, 8L * i, (short) (in >>> 48));
            insns.set(JAVA_BYTE, 8L * i + 2, (byte) (in >>> 40));
            insns.set(JAVA_BYTE, 8L * i + 3, (byte) (in >>> 32));
            insns.set(JAVA_INT, 8L * i + 4, (int) in);
        }
        scratch.set(JAVA_LONG, 0, 0L);
        scratch.set(JAVA_SHORT, 0, (short) program.length);
        scratch.set(JAVA_LONG, 8, insns.address());
        try {
            return result((int) SETSOCKOPT.invokeExact(state, fd, level, name, scratch.asSlice(0, 16), 16), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** getsockopt(2) of an int value; returns the value, or -errno. {@code scratch} holds 8 bytes. */
    public static int getsockoptInt(MemorySegment state, int fd, int level, int name, MemorySegment scratch) {
        scratch.set(JAVA_INT, 4, 4);
        try {
            int r = (int) GETSOCKOPT.invokeExact(state, fd, level, name, scratch, scratch.asSlice(4));
            return r < 0 ? -errno(state) : scratch.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** close(2); returns 0 or -errno. */
    public static int close(MemorySegment state, int fd) {
        try {
            return result((int) CLOSE.invokeExact(state, fd), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * sendmmsg(2); returns how many messages went out, or -errno. A failure is retried once with
     * errno capture (sendmmsg fails only when its first message did not go, so nothing repeats).
     */
    public static int sendmmsg(MemorySegment state, int fd, MemorySegment msgvec, int vlen, int flags) {
        try {
            int r = (int) SENDMMSG_FAST.invokeExact(fd, msgvec, vlen, flags);
            if (r >= 0) {
                return r;
            }
            return result((int) SENDMMSG.invokeExact(state, fd, msgvec, vlen, flags), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** recvmmsg(2) without timeout; returns how many messages arrived, or -1 (none now, errno not reported). */
    public static int recvmmsg(int fd, MemorySegment msgvec, int vlen, int flags) {
        try {
            int r = (int) RECVMMSG_FAST.invokeExact(fd, msgvec, vlen, flags, MemorySegment.NULL);
            return r >= 0 ? r : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * ppoll(2) over {@code nfds} pollfd structs; {@code timespec} is a {@link SocketStructs#TIMESPEC_SIZE}
     * segment or {@link MemorySegment#NULL} to wait forever. Returns the number of ready fds, or -1
     * (interrupted or failed; errno not reported).
     */
    public static int ppoll(MemorySegment fds, int nfds, MemorySegment timespec) {
        try {
            int r = (int) PPOLL_FAST.invokeExact(fds, (long) nfds, timespec, MemorySegment.NULL);
            return r >= 0 ? r : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** eventfd(2); returns the fd or -errno. */
    public static int eventfd(MemorySegment state, int initval, int flags) {
        try {
            return result((int) EVENTFD.invokeExact(state, initval, flags), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** timerfd_create(2); returns the fd or -errno. */
    public static int timerfdCreate(MemorySegment state, int clockId, int flags) {
        try {
            return result((int) TIMERFD_CREATE.invokeExact(state, clockId, flags), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * timerfd_settime(2) with a relative {@link SocketStructs#ITIMERSPEC_SIZE itimerspec}, no old
     * value; returns 0, or -1 (errno not reported: the fd is the caller's own, the spec well formed).
     */
    public static int timerfdSettime(int fd, MemorySegment spec) {
        try {
            int r = (int) TIMERFD_SETTIME_FAST.invokeExact(fd, 0, spec, MemorySegment.NULL);
            return r >= 0 ? r : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** read(2); returns bytes read, or -1 (errno not reported). */
    public static long read(int fd, MemorySegment buf, long len) {
        try {
            long r = (long) READ_FAST.invokeExact(fd, buf, len);
            return r >= 0 ? r : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Adds 1 to an eventfd's counter; safe from any thread, errors ignored (the fd stays readable). */
    public static void signal(int eventFd) {
        try {
            long ignored = (long) WRITE_NO_ERRNO.invokeExact(eventFd, ONE, 8L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Errno name, covering the socket errno values above as well as {@link Errno}'s. */
    public static String errnoName(int errno) {
        return switch (errno) {
            case EMSGSIZE -> "EMSGSIZE";
            case ENOPROTOOPT -> "ENOPROTOOPT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENOBUFS -> "ENOBUFS";
            case ECONNREFUSED -> "ECONNREFUSED";
            default -> Errno.name(errno);
        };
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
