package dev.jrxe.net;

/**
 * How the kernel steers a device's datagrams over its engines' sockets. A device of K engines
 * binds K sockets to one address and port (SO_REUSEPORT) and attaches a classic-BPF program to
 * the group (SO_ATTACH_REUSEPORT_CBPF) that returns, for each datagram, the index of the socket
 * that gets it: the BTH's DestQP modulo K. The kernel runs it on the UDP payload, so the 24-bit
 * DestQP is the low bits of the big-endian word at offset 4. Engine i hands out only QPNs with
 * {@code qpn % K == i}, so every packet lands on the engine that owns its QP with no hand-off
 * between threads. (A datagram shorter than 8 bytes makes the program return 0; engine 0 then
 * drops it as a short packet.)
 */
public final class QpSteering {
    /** Offset in the UDP payload of the 32-bit word whose low 24 bits are the BTH DestQP. */
    static final int DEST_QP_WORD = 4;
    /** Most engines a device may run (the kernel allows far more sockets in a group). */
    public static final int MAX_ENGINES = 16;

    private QpSteering() {
    }

    /** The engine of a device with {@code engines} engines that owns {@code destQp}. */
    public static int engineOf(int destQp, int engines) {
        return (destQp & 0xFFFFFF) % engines;
    }

    /**
     * The reuseport program for {@code engines} sockets: {@code ld [4]; and #0xffffff; mod #K; ret a}.
     * Each instruction as {@link dev.jrxe.sys.Sockets#setsockoptFilter} takes it.
     */
    static long[] program(int engines) {
        if (engines < 1 || engines > MAX_ENGINES) {
            throw new IllegalArgumentException("engines must be in [1, " + MAX_ENGINES + "]: " + engines);
        }
        return new long[] {
            insn(0x20, DEST_QP_WORD), // BPF_LD | BPF_W | BPF_ABS: A = ntohl(payload[4..8))
            insn(0x54, 0xFFFFFF),     // BPF_ALU | BPF_AND | BPF_K: the DestQP
            insn(0x94, engines),      // BPF_ALU | BPF_MOD | BPF_K
            insn(0x16, 0),            // BPF_RET | BPF_A: the socket's index in the group
        };
    }

    private static long insn(int code, int k) {
        return (long) code << 48 | (k & 0xFFFFFFFFL);
    }
}
