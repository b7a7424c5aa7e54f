package dev.jrxe.net;

import dev.jrxe.sys.SocketStructs;
import dev.jrxe.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.net.SocketException;

import static dev.jrxe.sys.SocketStructs.MMSGHDR_SIZE;
import static dev.jrxe.sys.SocketStructs.MMSG_LEN;
import static dev.jrxe.sys.SocketStructs.MSG_CONTROLLEN;
import static dev.jrxe.sys.SocketStructs.MSG_FLAGS;
import static dev.jrxe.sys.SocketStructs.MSG_NAMELEN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The Linux link through FFM: its own non-blocking UDP socket with DF always set
 * (IP_PMTUDISC_DO, so an unconnected socket sends IPv4 ID 0), {@code sendmmsg} for a whole batch
 * and {@code recvmmsg} for many datagrams per call, {@code ppoll} with an eventfd for waiting.
 *
 * <p>With GSO, consecutive datagrams to the same destination whose lengths are equal (the last
 * may be shorter) go as one message with a UDP_SEGMENT cmsg; the kernel cuts it into datagrams
 * and numbers their IPv4 IDs 0, 1, 2, ... (inet_gso_segment increments the ID of the DF super
 * packet, whose ID is 0), so the sealer is called with the segment index. The receive socket
 * sets UDP_GRO and splits coalesced datagrams by the segment size the kernel reports.
 *
 * <p>A datagram whose source port is not the link's own goes out through a send-only socket bound
 * to that port on the link's address (opened on first use), as Linux rxe sends from per-connection
 * source ports; if that port cannot be bound, the datagram goes from the link's own port. These
 * sockets are never connected, although that would save the route lookup of every send (~0.3 us
 * here): a connected socket numbers its IPv4 IDs from a random start the sealer cannot know, so
 * the ICRC would not match the packet on the wire (measured: roce_check failed every packet).
 */
final class NativeLink extends AbstractLink {
    /** Largest GSO message payload; lo segments anything above ~65494 bytes in software first. */
    static final int GSO_MAX_BYTES = 65000;
    private static final int GRO_BUFFER = 65536;
    private static final int RX_CONTROL = 32;
    private static final int TX_CONTROL = SocketStructs.cmsgSpace(2);
    private static final int SEND_RETRIES = 8;
    /** Longest sleep in {@link #awaitReadable} while multicast groups are joined. */
    private static final long MULTICAST_WAIT_NANOS = 1_000_000;
    private static final long EAGAIN_WAIT_NANOS = 1_000_000;
    private static final long ENOBUFS_WAIT_NANOS = 50_000;

    private static volatile Boolean gsoSupported;

    /** Per-thread errno capture: one for the link's thread (everything but wakeup). */
    private final MemorySegment callState = Sockets.newCallState(arena);
    private final MemorySegment scratch = arena.allocate(16, 8);
    private final int fd;
    private final int eventFd;
    private final java.util.concurrent.atomic.AtomicInteger wakers = new java.util.concurrent.atomic.AtomicInteger();
    private final boolean noCheck;
    private boolean gso;
    private final boolean gro;
    /** fd+1 of the send socket of each source port; 0 = not opened yet. */
    private int[] portFd;

    // ---- send: one mmsghdr/name/control per message, one iovec per datagram (in queue order)
    private final MemorySegment txMsgs;
    /** txMsgs from message i on, so a resumed sendmmsg needs no new slice. */
    private final MemorySegment[] txMsgAt;
    private final MemorySegment txIovs;
    private final MemorySegment txNames;
    private final MemorySegment txControls;
    /** The slot of each datagram of the messages being sent, in order (a message's: from msgFirstDatagram). */
    private final int[] datagramSlot;
    private final int[] msgFirstDatagram;
    private final int[] msgSegments;
    /** Whether payloads may be sent by reference (three iovecs for such a datagram, else one). */
    private final boolean byReference;
    private final MemorySegment pollFds = arena.allocate(2L * SocketStructs.POLLFD_SIZE, 8);
    private final MemorySegment timespec = arena.allocate(SocketStructs.TIMESPEC_SIZE, 8);

    // ---- awaitReadable: may run on another thread than poll/flush, so it has buffers of its own,
    // from an arena of its own: a downcall takes and gives back a hold on the arena of each segment
    // it passes (a compare-and-set on a counter the arena's segments share), and a waiter's ppoll
    // on the link's arena raced the driving thread's sendmmsg/recvmmsg for it. A lost race takes a
    // retry branch that compiled code has never seen taken: the JIT throws that code away (poll,
    // send) and the path runs interpreted until it is compiled again (-Xlog:deoptimization)
    private final Arena waitArena = Arena.ofShared();
    private final MemorySegment waitFds = waitArena.allocate(2L * SocketStructs.POLLFD_SIZE, 8);
    private final MemorySegment waitTimespec = waitArena.allocate(SocketStructs.TIMESPEC_SIZE, 8);
    private final MemorySegment waitScratch = waitArena.allocate(8, 8);

    // ---- the away watchdog (Link#armWatchdog): a timerfd, -1 when the kernel gave none. The
    // driving thread arms it with the link's arena, under the engine as its poll and flush; the
    // progress thread arms and waits with an arena of its own (see waitArena for why)
    private final int timerFd;
    private final MemorySegment armSpec = arena.allocate(SocketStructs.ITIMERSPEC_SIZE, 8);
    private final Arena watchArena = Arena.ofShared();
    private final MemorySegment watchFds = watchArena.allocate(2L * SocketStructs.POLLFD_SIZE, 8);
    private final MemorySegment watchTimespec = watchArena.allocate(SocketStructs.TIMESPEC_SIZE, 8);
    private final MemorySegment watchSpec = watchArena.allocate(SocketStructs.ITIMERSPEC_SIZE, 8);
    private final MemorySegment watchScratch = watchArena.allocate(8, 8);

    // ---- receive: R messages, each with its own buffer; a cursor across polls
    private final int rxMessages;
    private final MemorySegment rxMsgs;
    private final MemorySegment rxNames;
    private final MemorySegment rxControls;
    private final MemorySegment[] rxBuf;
    private int rxReady;
    private int rxIndex;
    private int rxOffset;
    private int rxDirty;
    /** The last recvmmsg returned fewer messages than asked: the socket was empty a moment ago. */
    private boolean rxDrained;
    /** Received datagrams wait in rxBuf for the next poll; read by awaitReadable on any thread. */
    private volatile boolean rxBacklog;

    NativeLink(LinkConfig config, LinkMode mode, DatagramSealer sealer) throws IOException {
        super(config, mode, sealer);
        this.gso = mode == LinkMode.GSO;
        // A device of several engines takes no GRO: a NIC's GRO merges datagrams of one UDP flow
        // whatever their DestQP, and the kernel would steer the merged batch whole to one engine.
        this.gro = gso && config.engines() == 1;
        this.noCheck = mode == LinkMode.MMSG;
        int sock = -1;
        int efd = -1;
        int tfd = -1;
        try {
            sock = openSocket(callState, scratch, localAddr, config.port(), config.sendBufferBytes(), config.receiveBufferBytes(),
                    gro, noCheck);
            efd = Sockets.eventfd(callState, 0, Sockets.EFD_NONBLOCK | Sockets.EFD_CLOEXEC);
            if (efd < 0) {
                throw new SocketException("eventfd: " + Sockets.errnoName(-efd));
            }
            // without one (-1), the engine's progress thread looks by the clock instead
            tfd = Math.max(-1, Sockets.timerfdCreate(callState, Sockets.CLOCK_MONOTONIC,
                Sockets.TFD_NONBLOCK | Sockets.TFD_CLOEXEC));
            MemorySegment name = arena.allocate(SocketStructs.SOCKADDR_IN_SIZE, 8);
            scratch.set(JAVA_INT, 0, SocketStructs.SOCKADDR_IN_SIZE);
            int r = Sockets.getsockname(callState, sock, name, scratch);
            if (r < 0) {
                throw new SocketException("getsockname: " + Sockets.errnoName(-r));
            }
            this.localPort = SocketStructs.sockaddrInPort(name, 0);
        } catch (IOException | RuntimeException e) {
            if (sock >= 0) {
                Sockets.close(callState, sock);
            }
            if (efd >= 0) {
                Sockets.close(callState, efd);
            }
            if (tfd >= 0) {
                Sockets.close(callState, tfd);
            }
            waitArena.close();
            watchArena.close();
            portArena.close();
            closeCommon();
            throw e;
        }
        this.fd = sock;
        this.eventFd = efd;
        this.timerFd = tfd;

        txMsgs = arena.allocate((long) slotCount * MMSGHDR_SIZE, 8);
        txMsgAt = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) {
            txMsgAt[i] = txMsgs.asSlice((long) i * MMSGHDR_SIZE);
        }
        byReference = byReferencePossible() && dev.jrxe.Configuration.linkSendByReference();
        txIovs = arena.allocate((long) slotCount * (byReference ? 3 : 1) * SocketStructs.IOVEC_SIZE, 8);
        txNames = arena.allocate((long) slotCount * SocketStructs.SOCKADDR_IN_SIZE, 8);
        txControls = arena.allocate((long) slotCount * TX_CONTROL, 8);
        datagramSlot = new int[slotCount];
        msgFirstDatagram = new int[slotCount];
        msgSegments = new int[slotCount];

        rxMessages = gro ? Math.max(8, batch / 4) : batch;
        int rxSize = gro ? GRO_BUFFER : maxDatagram;
        rxMsgs = arena.allocate((long) rxMessages * MMSGHDR_SIZE, 8);
        MemorySegment rxIovs = arena.allocate((long) rxMessages * SocketStructs.IOVEC_SIZE, 8);
        rxNames = arena.allocate((long) rxMessages * SocketStructs.SOCKADDR_IN_SIZE, 8);
        rxControls = arena.allocate((long) rxMessages * RX_CONTROL, 8);
        long stride = (rxSize + 63) & -64L;
        MemorySegment rxMemory = arena.allocate(stride * rxMessages, 64);
        rxBuf = new MemorySegment[rxMessages];
        for (int i = 0; i < rxMessages; i++) {
            rxBuf[i] = rxMemory.asSlice(i * stride, rxSize);
            SocketStructs.iovec(rxIovs, (long) i * SocketStructs.IOVEC_SIZE, rxBuf[i], rxSize);
            SocketStructs.msghdr(rxMsgs, (long) i * MMSGHDR_SIZE,
                    rxNames.asSlice((long) i * SocketStructs.SOCKADDR_IN_SIZE, SocketStructs.SOCKADDR_IN_SIZE),
                    SocketStructs.SOCKADDR_IN_SIZE,
                    rxIovs.asSlice((long) i * SocketStructs.IOVEC_SIZE, SocketStructs.IOVEC_SIZE), 1,
                    gro ? rxControls.asSlice((long) i * RX_CONTROL, RX_CONTROL) : MemorySegment.NULL,
                    gro ? RX_CONTROL : 0);
        }
        rxDirty = 0;
    }

    /** True when the kernel takes UDP_SEGMENT and UDP_GRO (probed once with a throwaway socket). */
    static boolean gsoSupported() {
        Boolean b = gsoSupported;
        if (b == null) {
            b = probeGso();
            gsoSupported = b;
        }
        return b;
    }

    private static boolean probeGso() {
        if (!Sockets.available()) {
            return false;
        }
        try (var a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment st = Sockets.newCallState(a);
            MemorySegment v = a.allocate(8, 8);
            int s = Sockets.socket(st, Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
            if (s < 0) {
                return false;
            }
            try {
                return Sockets.setsockopt(st, s, Sockets.SOL_UDP, Sockets.UDP_SEGMENT, 0, v) == 0
                        && Sockets.setsockopt(st, s, Sockets.SOL_UDP, Sockets.UDP_GRO, 1, v) == 0;
            } finally {
                Sockets.close(st, s);
            }
        }
    }

    /**
     * Opens and binds a socket; {@code st} and {@code sc} (the call state and a 16-byte scratch)
     * are the caller's to use alone: a source port's socket may open on an application thread
     * (through {@link #portCallState}, under the link's monitor) while the engine's thread sends
     * through the link's own.
     */
    private int openSocket(MemorySegment st, MemorySegment sc, int addr, int port, int sndBuf, int rcvBuf,
                           boolean wantGro, boolean wantNoCheck)
            throws IOException {
        int s = Sockets.socket(st, Sockets.AF_INET,
                Sockets.SOCK_DGRAM | Sockets.SOCK_NONBLOCK | Sockets.SOCK_CLOEXEC, 0);
        if (s < 0) {
            throw new SocketException("socket: " + Sockets.errnoName(-s));
        }
        try {
            option(st, sc, s, Sockets.IPPROTO_IP, Sockets.IP_MTU_DISCOVER, Sockets.IP_PMTUDISC_DO, "IP_MTU_DISCOVER");
            bufferSize(st, sc, s, Sockets.SO_SNDBUFFORCE, Sockets.SO_SNDBUF, sndBuf);
            bufferSize(st, sc, s, Sockets.SO_RCVBUFFORCE, Sockets.SO_RCVBUF, rcvBuf);
            if (wantGro) {
                option(st, sc, s, Sockets.SOL_UDP, Sockets.UDP_GRO, 1, "UDP_GRO");
            }
            if (wantNoCheck) {
                option(st, sc, s, Sockets.SOL_SOCKET, Sockets.SO_NO_CHECK, 1, "SO_NO_CHECK");
            }
            // multicast sends leave from the device's own address and interface (struct in_addr,
            // network byte order in the int's memory), whatever the routes to 224.0.0.0/4 say
            option(st, sc, s, Sockets.IPPROTO_IP, Sockets.IP_MULTICAST_IF,
                    java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(addr) : addr,
                    "IP_MULTICAST_IF");
            int engines = config.engines();
            if (engines > 1) {
                // the device's port: one socket of its group, picked by DestQP (QpSteering); a QP's
                // source port: each engine whose QPs hash to it sends from a socket of its own
                option(st, sc, s, Sockets.SOL_SOCKET, Sockets.SO_REUSEPORT, 1, "SO_REUSEPORT");
            }
            MemorySegment sa = sc;
            SocketStructs.sockaddrIn(sa, 0, addr, port);
            int r = Sockets.bind(st, s, sa, SocketStructs.SOCKADDR_IN_SIZE);
            if (r < 0) {
                String where = "bind " + Links.formatAddress(addr) + ":" + port + ": " + Sockets.errnoName(-r);
                throw -r == Sockets.EADDRINUSE || -r == Sockets.EADDRNOTAVAIL
                        ? new BindException(where) : new SocketException(where);
            }
            if (engines > 1 && port == config.port()) {
                try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
                    long[] program = QpSteering.program(engines);
                    MemorySegment fprog = a.allocate(16 + 8L * program.length, 8);
                    r = Sockets.setsockoptFilter(st, s, Sockets.SOL_SOCKET, Sockets.SO_ATTACH_REUSEPORT_CBPF,
                            program, fprog);
                }
                if (r < 0) {
                    throw new SocketException("setsockopt SO_ATTACH_REUSEPORT_CBPF: " + Sockets.errnoName(-r));
                }
            }
            return s;
        } catch (IOException | RuntimeException e) {
            Sockets.close(st, s);
            throw e;
        }
    }

    private void option(MemorySegment st, MemorySegment sc, int s, int level, int name, int value, String what)
            throws SocketException {
        int r = Sockets.setsockopt(st, s, level, name, value, sc);
        if (r < 0) {
            throw new SocketException("setsockopt " + what + ": " + Sockets.errnoName(-r));
        }
    }

    /** Forces the size past the sysctl limit when allowed (root), else asks within the limit. */
    private void bufferSize(MemorySegment st, MemorySegment sc, int s, int force, int plain, int bytes)
            throws SocketException {
        if (bytes <= 0) {
            return;
        }
        if (Sockets.setsockopt(st, s, Sockets.SOL_SOCKET, force, bytes, sc) == 0) {
            return;
        }
        option(st, sc, s, Sockets.SOL_SOCKET, plain, bytes, plain == Sockets.SO_SNDBUF ? "SO_SNDBUF" : "SO_RCVBUF");
    }

    /** The socket that sends from {@code port}; the link's own when that port cannot be bound. */
    private int socketFor(int port) {
        if (port == localPort) {
            return fd;
        }
        int[] fds = portFd;
        int f = fds == null ? -1 : fds[port] - 1;
        return f >= 0 ? f : openPortSocket(port);
    }

    /**
     * The socket of source port {@code port}, opened if it has none: when its first QP holds the
     * port ({@link #openSourcePort}), so that the first send does not make a system call of its
     * own, or in the send path for a port nobody holds. Its own monitor, as the holders': a UD QP
     * takes its port before it joins an engine.
     */
    private synchronized int openPortSocket(int port) {
        if (portFd == null) {
            portFd = new int[65536];
        }
        int f = portFd[port] - 1;
        if (f < 0) {
            if (closed) {
                return fd; // (a send that raced close fails on the closed socket; nothing opens now)
            }
            try {
                // send-only: the smallest receive buffer
                f = openSocket(portCallState, portScratch, localAddr, port, config.sendBufferBytes(), 1, false, noCheck);
            } catch (IOException e) {
                f = fd;
            }
            portFd[port] = f + 1;
        }
        return f;
    }

    /**
     * What {@link #openPortSocket} and {@link #closeSourcePort} pass to their system calls, under
     * the link's monitor: a shared arena of their own, made once. Not a confined arena per call: a
     * QP's source port opens when it moves to RTR, often after the hot path has been compiled, and
     * the first confined segment those FFM accessors met then was a case C2 had compiled as never
     * seen: it threw compiled code away at the start of a measured rc-pingpong run
     * (-Xlog:deoptimization: checkValidStateRaw, VarHandleSegmentAsInts.set) and compiled it again
     * inside the run. Not the link's arena either, for the reason {@link #waitArena} has its own:
     * these calls run on application threads while the engine's thread sends.
     */
    private final Arena portArena = Arena.ofShared();
    private final MemorySegment portCallState = Sockets.newCallState(portArena);
    private final MemorySegment portScratch = portArena.allocate(16, 8);

    @Override
    void openSourcePort(int port) {
        if (port != localPort && !closed) {
            openPortSocket(port);
        }
    }

    @Override
    synchronized void closeSourcePort(int port) {
        if (!closed && portFd != null && portFd[port] > 0 && portFd[port] - 1 != fd) {
            Sockets.close(portCallState, portFd[port] - 1);
            portFd[port] = 0;
        }
    }

    /** Sets an int socket option on the link's own socket (tests use it to make GSO fail); returns 0 or -errno. */
    int setOption(int level, int name, int value) {
        return Sockets.setsockopt(callState, fd, level, name, value, scratch);
    }

    /** True while trains still go as GSO messages (false after the route refused GSO). */
    boolean gsoActive() {
        return gso;
    }

    // ------------------------------------------------------------------ send

    @Override
    int transmit(int[] slots, int count) {
        int sentTotal = 0;
        int i = 0;
        while (i < count) {
            int port = txSrcPort[slots[i]];
            int j = i + 1;
            while (j < count && txSrcPort[slots[j]] == port) {
                j++;
            }
            int s = socketFor(port);
            int wirePort = s == fd ? localPort : port;
            sentTotal += sendRun(s, wirePort, slots, i, j, gso);
            i = j;
        }
        return sentTotal;
    }

    @Override
    public boolean sendsByReference() {
        return byReference;
    }

    /** Seals and sends slots[from..to), all through socket {@code s}. */
    private int sendRun(int s, int wirePort, int[] slots, int from, int to, boolean useGso) {
        int messages = 0;
        int iovs = 0;
        int datagrams = 0;
        int k = from;
        while (k < to) {
            int head = slots[k++];
            txSrcPort[head] = wirePort;
            if (!seal(head, 0)) {
                continue;
            }
            int first = iovs;
            int firstDatagram = datagrams;
            datagramSlot[datagrams++] = head;
            iovs += addIovs(iovs, head);
            int segments = 1;
            int segSize = txLen[head];
            if (useGso && segSize > 0) {
                int bytes = segSize;
                int qp = steeringKey(head);
                while (k < to && segments < Sockets.UDP_MAX_SEGMENTS) {
                    int x = slots[k];
                    int len = txLen[x];
                    // one train, one DestQP: a receiver of several engines steers a train whole
                    if (txDstAddr[x] != txDstAddr[head] || txDstPort[x] != txDstPort[head]
                            || len == 0 || len > segSize || bytes + len > GSO_MAX_BYTES || steeringKey(x) != qp) {
                        break;
                    }
                    k++;
                    txSrcPort[x] = wirePort;
                    if (!seal(x, segments)) {
                        break;
                    }
                    datagramSlot[datagrams++] = x;
                    iovs += addIovs(iovs, x);
                    segments++;
                    bytes += len;
                    if (len < segSize) {
                        break;
                    }
                }
            }
            addMessage(messages++, head, first, iovs - first, firstDatagram, segments, segSize);
        }
        return sendMessages(s, wirePort, messages);
    }

    /** The word the receiver's reuseport program steers by (DestQP), or -1 for a datagram too short to have one. */
    private int steeringKey(int slot) {
        return txLen[slot] < QpSteering.DEST_QP_WORD + 4 ? -1
                : txSlot[slot].get(BE_INT, QpSteering.DEST_QP_WORD) & 0xFFFFFF;
    }

    private static final java.lang.foreign.ValueLayout.OfInt BE_INT =
            JAVA_INT.withOrder(java.nio.ByteOrder.BIG_ENDIAN).withByteAlignment(1);

    /**
     * Writes the iovecs of slot {@code slot}'s datagram from iovec {@code i} on; returns how many:
     * one for a datagram held whole in its slot, three for one whose payload is sent by reference
     * (the slot's bytes before the payload, the payload where it lies, the slot's bytes after).
     */
    private int addIovs(int i, int slot) {
        long off = (long) i * SocketStructs.IOVEC_SIZE;
        if (txRelease[slot] == null) {
            SocketStructs.iovec(txIovs, off, txSlot[slot], txLen[slot]);
            return 1;
        }
        int head = txRefHead[slot];
        int body = txRefLength[slot];
        long slotAddress = txSlot[slot].address();
        SocketStructs.iovecAt(txIovs, off, slotAddress, head);
        SocketStructs.iovecAt(txIovs, off + SocketStructs.IOVEC_SIZE, txRefSegment[slot].address() + txRefOffset[slot], body);
        SocketStructs.iovecAt(txIovs, off + 2L * SocketStructs.IOVEC_SIZE, slotAddress + head, txLen[slot] - head - body);
        return 3;
    }

    private void addMessage(int m, int head, int firstIov, int iovCount, int firstDatagram, int segments, int segSize) {
        msgFirstDatagram[m] = firstDatagram;
        msgSegments[m] = segments;
        long nameOff = (long) m * SocketStructs.SOCKADDR_IN_SIZE;
        SocketStructs.sockaddrIn(txNames, nameOff, txDstAddr[head], txDstPort[head]);
        long controlAddr = 0;
        int controlLen = 0;
        if (segments > 1) {
            long cOff = (long) m * TX_CONTROL;
            SocketStructs.cmsgU16(txControls, cOff, Sockets.SOL_UDP, Sockets.UDP_SEGMENT, segSize);
            controlAddr = txControls.address() + cOff;
            controlLen = TX_CONTROL;
        }
        long off = (long) m * MMSGHDR_SIZE;
        txMsgs.set(JAVA_LONG, off + SocketStructs.MSG_NAME, txNames.address() + nameOff);
        txMsgs.set(JAVA_INT, off + MSG_NAMELEN, SocketStructs.SOCKADDR_IN_SIZE);
        txMsgs.set(JAVA_LONG, off + SocketStructs.MSG_IOV, txIovs.address() + (long) firstIov * SocketStructs.IOVEC_SIZE);
        txMsgs.set(JAVA_LONG, off + SocketStructs.MSG_IOVLEN, iovCount);
        txMsgs.set(JAVA_LONG, off + SocketStructs.MSG_CONTROL, controlAddr);
        txMsgs.set(JAVA_LONG, off + MSG_CONTROLLEN, controlLen);
        txMsgs.set(JAVA_INT, off + MSG_FLAGS, 0);
        txMsgs.set(JAVA_INT, off + MMSG_LEN, 0);
    }

    private int sendMessages(int s, int wirePort, int messages) {
        int sent = 0;
        int done = 0;
        int retries = 0;
        while (done < messages) {
            int r = Sockets.sendmmsg(callState, s, txMsgAt[done], messages - done, 0);
            counters.sendCall();
            if (r > 0) {
                for (int m = done; m < done + r; m++) {
                    sent += msgSegments[m];
                    for (int i = msgFirstDatagram[m], e = i + msgSegments[m]; i < e; i++) {
                        sent(datagramSlot[i]);
                    }
                }
                done += r;
                retries = 0;
                continue;
            }
            int errno = -r;
            if (errno == dev.jrxe.ib.Errno.EINTR) {
                continue;
            }
            if ((errno == dev.jrxe.ib.Errno.EAGAIN || errno == Sockets.ENOBUFS) && retries++ < SEND_RETRIES) {
                waitWritable(s, errno == Sockets.ENOBUFS ? ENOBUFS_WAIT_NANOS : EAGAIN_WAIT_NANOS);
                continue;
            }
            if (msgSegments[done] > 1 && (errno == dev.jrxe.ib.Errno.EIO || errno == dev.jrxe.ib.Errno.EINVAL
                    || errno == Sockets.ENOPROTOOPT || errno == dev.jrxe.ib.Errno.EOPNOTSUPP)) {
                // The route does not take GSO: from here on send datagram by datagram, resealed with ID 0.
                gso = false;
                return sent + resendWithoutGso(s, wirePort, done, messages);
            }
            for (int i = msgFirstDatagram[done], e = i + msgSegments[done]; i < e; i++) {
                sendFailed(datagramSlot[i]);
            }
            done++;
            retries = 0;
        }
        return sent;
    }

    private int resendWithoutGso(int s, int wirePort, int fromMessage, int messages) {
        int first = msgFirstDatagram[fromMessage];
        int last = msgFirstDatagram[messages - 1] + msgSegments[messages - 1];
        int[] rest = java.util.Arrays.copyOfRange(datagramSlot, first, last);
        return sendRun(s, wirePort, rest, 0, rest.length, false);
    }

    private void waitWritable(int s, long nanos) {
        SocketStructs.pollfd(pollFds, 0, s, Sockets.POLLOUT);
        SocketStructs.timespec(timespec, 0, nanos);
        Sockets.ppoll(pollFds, 1, timespec);
    }

    // ------------------------------------------------------------------ receive

    @Override
    public int poll(DatagramHandler handler, int limit) {
        ensureOpen();
        int calls = 0;
        int taken = 0;
        while (taken < limit) {
            if (rxIndex >= rxReady && !receiveBatch()) {
                break;
            }
            long m = (long) rxIndex * MMSGHDR_SIZE;
            int len = rxMsgs.get(JAVA_INT, m + MMSG_LEN);
            int flags = rxMsgs.get(JAVA_INT, m + MSG_FLAGS);
            long nameOff = (long) rxIndex * SocketStructs.SOCKADDR_IN_SIZE;
            int srcAddr = SocketStructs.sockaddrInAddr(rxNames, nameOff);
            int srcPort = SocketStructs.sockaddrInPort(rxNames, nameOff);
            if ((flags & Sockets.MSG_TRUNC) != 0) {
                counters.received(len);
                counters.drop(DropReason.OVERSIZED);
                rxIndex++;
                taken++;
                continue;
            }
            if (len == 0) {
                calls += deliver(handler, rxBuf[rxIndex], 0, 0, srcAddr, srcPort);
                rxIndex++;
                taken++;
                continue;
            }
            int segSize = gro ? groSegmentSize(m, len) : len;
            MemorySegment buf = rxBuf[rxIndex];
            while (rxOffset < len && taken < limit) {
                int l = Math.min(segSize, len - rxOffset);
                int off = rxOffset;
                rxOffset += l;
                taken++;
                calls += deliver(handler, buf, off, l, srcAddr, srcPort);
            }
            if (rxOffset >= len) {
                rxIndex++;
                rxOffset = 0;
            }
        }
        lastPollFull = taken >= limit;
        calls += pollMulticast(handler, limit - taken);
        boolean backlog = rxIndex < rxReady;
        if (backlog != rxBacklog) {
            rxBacklog = backlog;
        }
        rethrowCallbackFailure();
        return calls;
    }

    private boolean receiveBatch() {
        if (rxDrained) {
            // Skip the recvmmsg that would most likely just say EAGAIN, once: the caller polls
            // again or waits in awaitReadable, which checks the socket itself.
            rxDrained = false;
            rxIndex = 0;
            rxOffset = 0;
            rxReady = 0;
            return false;
        }
        for (int i = 0; i < rxDirty; i++) {
            long m = (long) i * MMSGHDR_SIZE;
            rxMsgs.set(JAVA_INT, m + MSG_NAMELEN, SocketStructs.SOCKADDR_IN_SIZE);
            rxMsgs.set(JAVA_LONG, m + MSG_CONTROLLEN, gro ? RX_CONTROL : 0);
            rxMsgs.set(JAVA_INT, m + MSG_FLAGS, 0);
        }
        int r = Sockets.recvmmsg(fd, rxMsgs, rxMessages, Sockets.MSG_DONTWAIT);
        counters.receiveCall();
        rxIndex = 0;
        rxOffset = 0;
        if (r <= 0) {
            rxReady = 0;
            rxDirty = 0;
            return false;
        }
        rxReady = r;
        rxDirty = r;
        rxDrained = r < rxMessages;
        return true;
    }

    /** The UDP_GRO segment size of message at {@code m}, or its whole length when not coalesced. */
    private int groSegmentSize(long m, int len) {
        long controlLen = rxMsgs.get(JAVA_LONG, m + MSG_CONTROLLEN);
        long base = (m / MMSGHDR_SIZE) * RX_CONTROL;
        long off = 0;
        while (off + SocketStructs.CMSG_HDR <= controlLen) {
            long cl = SocketStructs.cmsgLength(rxControls, base + off);
            if (cl < SocketStructs.CMSG_HDR) {
                break;
            }
            if (SocketStructs.cmsgLevel(rxControls, base + off) == Sockets.SOL_UDP
                    && SocketStructs.cmsgType(rxControls, base + off) == Sockets.UDP_GRO
                    && cl >= SocketStructs.cmsgLen(4)) {
                int seg = SocketStructs.cmsgInt(rxControls, base + off);
                return seg > 0 ? seg : len;
            }
            off += (cl + 7) & ~7L;
        }
        return len;
    }

    /**
     * Waits on the socket and the eventfd. Safe while another thread polls or flushes (the engine's
     * progress thread waits here without holding the engine): it uses only its own pollfd,
     * timespec and read buffers and changes nothing that poll or flush use.
     */
    @Override
    public boolean awaitReadable(long timeoutNanos) {
        ensureOpen();
        if (rxBacklog) {
            return true;
        }
        SocketStructs.pollfd(waitFds, 0, fd, Sockets.POLLIN);
        SocketStructs.pollfd(waitFds, SocketStructs.POLLFD_SIZE, eventFd, Sockets.POLLIN);
        // the sockets of joined multicast groups are not in this ppoll: wake often enough for them
        long wait = multicast.any() ? Math.min(timeoutNanos, MULTICAST_WAIT_NANOS) : timeoutNanos;
        SocketStructs.timespec(waitTimespec, 0, Math.max(0, wait));
        int r = Sockets.ppoll(waitFds, 2, waitTimespec);
        if (r <= 0) {
            return false;
        }
        if ((SocketStructs.pollRevents(waitFds, SocketStructs.POLLFD_SIZE) & Sockets.POLLIN) != 0) {
            Sockets.read(eventFd, waitScratch, 8);
        }
        return (SocketStructs.pollRevents(waitFds, 0) & Sockets.POLLIN) != 0;
    }

    @Override
    public boolean hasWatchdog() {
        return timerFd >= 0;
    }

    @Override
    public void armWatchdog(long nanos) {
        if (timerFd >= 0 && !closed) {
            SocketStructs.itimerspecOnce(armSpec, 0, Math.max(1, nanos));
            Sockets.timerfdSettime(timerFd, armSpec);
        }
    }

    @Override
    public boolean awaitWatchdog(long armNanos, long timeoutNanos) {
        ensureOpen();
        if (timerFd < 0) {
            return false;
        }
        if (armNanos > 0) {
            SocketStructs.itimerspecOnce(watchSpec, 0, armNanos);
            Sockets.timerfdSettime(timerFd, watchSpec);
        }
        // the timer alone, not the eventfd: that one wakes the awaitReadable waiter, which would
        // miss its wakeup if this thread read the count first
        SocketStructs.pollfd(watchFds, 0, timerFd, Sockets.POLLIN);
        SocketStructs.timespec(watchTimespec, 0, Math.max(0, timeoutNanos));
        if (Sockets.ppoll(watchFds, 1, watchTimespec) <= 0) {
            return false;
        }
        boolean fired = (SocketStructs.pollRevents(watchFds, 0) & Sockets.POLLIN) != 0;
        if (fired) {
            Sockets.read(timerFd, watchScratch, 8); // (its expiry count: readable again only when it fires again)
        }
        return fired;
    }

    /** A one-shot itimerspec of 1 ns, read-only once made: any thread may pass it. */
    private static final MemorySegment FIRE_NOW = Arena.global().allocate(SocketStructs.ITIMERSPEC_SIZE, 8);

    static {
        SocketStructs.itimerspecOnce(FIRE_NOW, 0, 1);
    }

    @Override
    public void wakeWatchdog() {
        // counted as wakeup() is, so that close() never closes the timerfd under this call
        wakers.incrementAndGet();
        try {
            if (!closed && timerFd >= 0) {
                Sockets.timerfdSettime(timerFd, FIRE_NOW);
            }
        } finally {
            wakers.decrementAndGet();
        }
    }

    /** The lifetimes of the waiter's buffers and of the send path's (tests: not the same arena). */
    MemorySegment.Scope[] waitAndSendScopes() {
        return new MemorySegment.Scope[] {waitFds.scope(), txMsgs.scope()};
    }

    @Override
    public void wakeup() {
        // Count in-flight wakeups so close() never closes the eventfd under one (its number could be reused).
        wakers.incrementAndGet();
        try {
            if (!closed) {
                Sockets.signal(eventFd);
            }
        } finally {
            wakers.decrementAndGet();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Sockets.close(callState, fd);
        while (wakers.get() != 0) {
            Thread.onSpinWait();
        }
        Sockets.close(callState, eventFd);
        if (timerFd >= 0) {
            Sockets.close(callState, timerFd);
        }
        // under the monitor the source ports open and close with: none is opening now, and none
        // opens once closed is set
        synchronized (this) {
            if (portFd != null) {
                for (int f : portFd) {
                    if (f > 0 && f - 1 != fd) {
                        Sockets.close(portCallState, f - 1);
                    }
                }
            }
            portArena.close();
        }
        try {
            closeCommon();
        } finally {
            waitArena.close();
            watchArena.close();
        }
    }
}
