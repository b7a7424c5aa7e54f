package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC of an IPv4 datagram, computed and checked as Linux rxe does.
 *
 * <h2>What is covered</h2>
 * CRC-32 (IEEE, reflected, {@link CRC32}) over: 8 bytes of 0xFF (the masked LRH); the 20-byte
 * IPv4 header with TOS, TTL and header checksum set to ones and everything else real (version/IHL
 * 0x45, total length = 28 + UDP payload, Identification, flags DF with fragment offset 0, protocol
 * 17, addresses); the UDP header with checksum set to ones; the BTH with byte 4 (FECN, BECN,
 * reserved) set to ones; then every byte after the BTH up to the ICRC (extension headers, payload,
 * pad). The value is stored little-endian in the last four bytes of the UDP payload. jrxe sends and
 * expects only DF datagrams without IP options; IPv6 is not supported.
 *
 * <h2>Receiving without knowing the IPv4 Identification</h2>
 * The Identification is covered but a UDP socket does not show it, and Linux rxe sends non-zero
 * ones. {@link #solveIpId} recovers it from the packet instead. CRC-32 is affine: for messages of
 * equal length, {@code crc(m ^ e) = crc(m) ^ L(e)} with {@code L} linear over GF(2) (the register
 * transform without initial value and final XOR). So with {@code c0} the CRC computed with ID 0
 * and {@code c} the stored ICRC, the packet is authentic for ID {@code id} exactly when
 * {@code c ^ c0 = L(e_id)}, {@code e_id} being the message that is zero except for the two ID
 * bytes. As zlib's {@code crc32_combine} uses, feeding a byte and then {@code d} zero bytes
 * multiplies the register by {@code x^(8d) mod P}. Hence
 * {@code L(e_id) = (H x^8 + L) x^(8(d+1))} where H and L are the ID's two bytes as register
 * polynomials and {@code d} the number of bytes after the ID field. The 16 columns of the general
 * 32x16 system are thus powers of x times one factor, and the elimination collapses to one
 * multiplication: {@code u = (c ^ c0) * x^-(8(d+2)) mod P} must equal {@code H + L x^-8}, a
 * polynomial that occupies exactly the low 16 bits of the reflected register (bits 0-7 the high ID
 * byte, bits 8-15 the low byte). If the upper 16 bits of {@code u} are not zero, no ID makes the
 * ICRC match and the packet is corrupt. {@code x^-1} exists because P(0) = 1. The factor
 * {@code x^-(8(d+2))} depends only on the datagram length and is cached per length (one int).
 *
 * <p>Cost of the trade: an ICRC that may match any of 65536 IDs detects a random corruption with
 * probability 1 - 2^-16 instead of 1 - 2^-32 (a corrupted packet passes when its error syndrome
 * happens to fall into the 16-dimensional ID subspace). A receiver that knows which IDs to expect
 * (a jrxe sender: always 0) can compare the returned ID with them.
 *
 * <p>Not thread-safe: one instance per thread (it keeps a {@link CRC32} and scratch space, which
 * holds up to {@link #INLINE_BODY} bytes of the last datagram's body between calls).
 * No allocation per packet as long as the segments passed in are reused (their
 * {@link ByteBuffer} views are cached by identity).
 */
public final class Icrc {
    /** Bytes of the masked pseudo header: 8 x 0xFF, IPv4 (20), UDP (8), BTH (12). */
    static final int PSEUDO_LENGTH = 48;
    private static final int IP = 8;
    private static final int UDP = IP + 20;
    private static final int BTH = UDP + 8;
    private static final int IPV4_DF = 0x4000;
    private static final int MAX_UDP_PAYLOAD = 65535 - 28;

    /** x^-(8(d+2)) by UDP payload length; 0 = not yet computed (never a real value). Benign races. */
    private static final int[] SOLVE_FACTOR = new int[MAX_UDP_PAYLOAD + 1];

    /** Bodies (after the BTH) up to this long are CRC'd from a copy behind the pseudo header. */
    static final int INLINE_BODY = 512;
    private static final VarHandle BE16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle BE32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[PSEUDO_LENGTH + INLINE_BODY];
    /** View cache: open addressing by identity, probing a few slots (links use ~100-300 buffers). */
    private static final int VIEWS = 1024;
    private static final int PROBES = 16;
    private final MemorySegment[] viewKeys = new MemorySegment[VIEWS];
    private final ByteBuffer[] views = new ByteBuffer[VIEWS];
    /** Views of application memory sealed in parts ({@link #sealParts}), by identity. */
    private static final int BODY_VIEWS = 256;
    private final MemorySegment[] bodyKeys = new MemorySegment[BODY_VIEWS];
    private final ByteBuffer[] bodyViews = new ByteBuffer[BODY_VIEWS];

    public Icrc() {
        for (int i = 0; i < IP; i++) {
            pseudo[i] = (byte) 0xFF;
        }
        pseudo[IP] = 0x45;
        pseudo[IP + 1] = (byte) 0xFF;                   // TOS masked
        BE16.set(pseudo, IP + 6, (short) IPV4_DF);      // flags DF, fragment offset 0
        pseudo[IP + 8] = (byte) 0xFF;                   // TTL masked
        pseudo[IP + 9] = 17;                            // UDP
        BE16.set(pseudo, IP + 10, (short) 0xFFFF);      // header checksum masked
        BE16.set(pseudo, UDP + 6, (short) 0xFFFF);      // UDP checksum masked
    }

    /**
     * The ICRC of a datagram: the CRC-32 value that belongs in its last four bytes.
     *
     * @param buf     memory holding the UDP payload
     * @param offset  offset of the BTH in {@code buf}
     * @param length  UDP payload length including the 4 ICRC bytes (at least 16)
     * @param srcAddr IPv4 source address, big-endian int
     * @param dstAddr IPv4 destination address
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param ipId    IPv4 Identification
     */
    public int compute(MemorySegment buf, long offset, int length,
                       int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        byte[] p = pseudo(length, srcAddr, dstAddr, srcPort, dstPort, ipId);
        int restLength = length - OpcodeTable.BTH_LENGTH - OpcodeTable.ICRC_LENGTH;
        // A short body goes into the array behind the pseudo header: one CRC call over an array
        // is cheaper than a second call through a ByteBuffer (~15 ns of checks and session
        // bookkeeping each), which only pays off for long bodies.
        int inline = restLength <= INLINE_BODY ? restLength : 0;
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, offset, p, BTH, OpcodeTable.BTH_LENGTH + inline);
        p[BTH + 4] = (byte) 0xFF;                       // FECN, BECN, resv6 masked
        crc.reset();
        crc.update(p, 0, PSEUDO_LENGTH + inline);
        if (restLength > inline) {
            update(buf, offset + OpcodeTable.BTH_LENGTH, restLength);
        }
        return (int) crc.getValue();
    }

    /** Computes the ICRC and stores it little-endian in the last four bytes of the datagram. */
    public void seal(MemorySegment buf, long offset, int length,
                     int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        int value = compute(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort, ipId);
        buf.set(Bytes.I32_LE, offset + length - OpcodeTable.ICRC_LENGTH, value);
    }

    /**
     * Computes the ICRC of a datagram held in two places and stores it: its headers (BTH and
     * extension headers) in {@code head} from offset 0, its payload in {@code body}, and its pad
     * and four ICRC bytes in {@code head} again, right after the headers (a link that sends the
     * payload from where it lies; the three parts travel as one datagram in that order).
     *
     * @param head       the headers at [0, headLength), then pad and ICRC at [headLength, headLength + tailLength)
     * @param headLength bytes of headers, BTH included (at most 12 + {@link #INLINE_BODY})
     * @param body       the payload's memory
     * @param bodyOffset where the payload starts in {@code body}
     * @param bodyLength payload bytes
     * @param tailLength pad (0-3) plus the 4 ICRC bytes
     */
    public void sealParts(MemorySegment head, int headLength, MemorySegment body, long bodyOffset, int bodyLength,
                          int tailLength, int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        int ext = headLength - OpcodeTable.BTH_LENGTH;
        int pad = tailLength - OpcodeTable.ICRC_LENGTH;
        if (ext < 0 || ext > INLINE_BODY || pad < 0 || pad > 3 || bodyLength < 0) {
            throw new IllegalArgumentException("parts " + headLength + "+" + bodyLength + "+" + tailLength);
        }
        byte[] p = pseudo(headLength + bodyLength + tailLength, srcAddr, dstAddr, srcPort, dstPort, ipId);
        MemorySegment.copy(head, ValueLayout.JAVA_BYTE, 0, p, BTH, headLength);
        p[BTH + 4] = (byte) 0xFF;                       // FECN, BECN, resv6 masked
        crc.reset();
        crc.update(p, 0, PSEUDO_LENGTH + ext);
        if (bodyLength > 0) {
            updateBody(body, bodyOffset, bodyLength);
        }
        for (int i = 0; i < pad; i++) {
            crc.update(head.get(ValueLayout.JAVA_BYTE, headLength + i));
        }
        head.set(Bytes.I32_LE, headLength + pad, (int) crc.getValue());
    }

    /** The pseudo header's IPv4 and UDP fields for a datagram of UDP payload {@code length}; the BTH is the caller's. */
    private byte[] pseudo(int length, int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        checkLength(length);
        byte[] p = pseudo;
        BE16.set(p, IP + 2, (short) (28 + length));
        BE16.set(p, IP + 4, (short) ipId);
        BE32.set(p, IP + 12, srcAddr);
        BE32.set(p, IP + 16, dstAddr);
        BE16.set(p, UDP, (short) srcPort);
        BE16.set(p, UDP + 2, (short) dstPort);
        BE16.set(p, UDP + 4, (short) (8 + length));
        return p;
    }

    /** The ICRC stored in the last four bytes of a datagram. */
    public static int stored(MemorySegment buf, long offset, int length) {
        return buf.get(Bytes.I32_LE, offset + length - OpcodeTable.ICRC_LENGTH);
    }

    /** Whether the stored ICRC matches the datagram sent with IPv4 Identification {@code ipId}. */
    public boolean verify(MemorySegment buf, long offset, int length,
                          int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        return compute(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort, ipId) == stored(buf, offset, length);
    }

    /**
     * The IPv4 Identification under which the stored ICRC matches (see the class comment).
     *
     * @return the ID (0..65535), or -1 when no ID makes the ICRC match (a corrupt datagram)
     */
    public int solveIpId(MemorySegment buf, long offset, int length,
                         int srcAddr, int dstAddr, int srcPort, int dstPort) {
        int syndrome = compute(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort, 0)
            ^ stored(buf, offset, length);
        if (syndrome == 0) {
            return 0;
        }
        int u = Gf2Crc32.multiply(syndrome, solveFactor(length));
        if ((u & 0xFFFF0000) != 0) {
            return -1;
        }
        return ((u & 0xFF) << 8) | ((u >>> 8) & 0xFF);
    }

    /** x^-(8 * bytes from the ID field to the end of the CRC'd message), for a UDP payload length. */
    private static int solveFactor(int length) {
        int factor = SOLVE_FACTOR[length];
        if (factor == 0) {
            // message = pseudo (48) + rest after BTH (length - 16); ID starts at byte IP + 4
            long fromId = PSEUDO_LENGTH + (length - 16L) - (IP + 4);
            factor = Gf2Crc32.inversePower(8 * fromId);
            SOLVE_FACTOR[length] = factor;
        }
        return factor;
    }

    private static void checkLength(int length) {
        if (length < OpcodeTable.BTH_LENGTH + OpcodeTable.ICRC_LENGTH || length > MAX_UDP_PAYLOAD) {
            throw new IllegalArgumentException("not a RoCE datagram length: " + length);
        }
    }

    private void update(MemorySegment buf, long from, int length) {
        if (buf.byteSize() > Integer.MAX_VALUE) { // no ByteBuffer view of the whole segment: rare path
            crc.update(buf.asSlice(from, length).asByteBuffer());
            return;
        }
        ByteBuffer view = view(buf);
        view.limit((int) from + length).position((int) from); // (limit first: position never above it)
        crc.update(view);
    }

    /**
     * CRC over application memory (a payload sent by reference): through a view cached by
     * identity in a table of its own, so that the link's buffers keep theirs (a miss evicts the
     * segment's home entry: views are made again only while regions come and go); a segment over
     * 2 GiB through {@link #pseudo}'s scratch bytes in chunks, allocating nothing.
     */
    private void updateBody(MemorySegment body, long from, int length) {
        if (body.byteSize() <= Integer.MAX_VALUE) {
            int home = System.identityHashCode(body) & (BODY_VIEWS - 1);
            int slot = home;
            for (int i = 0; i < PROBES; i++) {
                int s = (home + i) & (BODY_VIEWS - 1);
                MemorySegment key = bodyKeys[s];
                if (key == body || key == null) {
                    slot = s;
                    break;
                }
            }
            if (bodyKeys[slot] != body) {
                bodyViews[slot] = body.asByteBuffer();
                bodyKeys[slot] = body;
            }
            ByteBuffer view = bodyViews[slot];
            view.limit((int) from + length).position((int) from);
            crc.update(view);
            return;
        }
        byte[] scratch = pseudo;
        for (int done = 0; done < length; ) {
            int n = Math.min(INLINE_BODY, length - done);
            MemorySegment.copy(body, ValueLayout.JAVA_BYTE, from + done, scratch, PSEUDO_LENGTH, n);
            crc.update(scratch, PSEUDO_LENGTH, n);
            done += n;
        }
    }

    private ByteBuffer view(MemorySegment buf) {
        int home = System.identityHashCode(buf) & (VIEWS - 1);
        for (int i = 0; i < PROBES; i++) {
            int slot = (home + i) & (VIEWS - 1);
            MemorySegment key = viewKeys[slot];
            if (key == buf) {
                return views[slot];
            }
            if (key == null) {
                return remember(slot, buf);
            }
        }
        return remember(home, buf);
    }

    private ByteBuffer remember(int slot, MemorySegment buf) {
        views[slot] = buf.asByteBuffer();
        viewKeys[slot] = buf;
        return views[slot];
    }
}
