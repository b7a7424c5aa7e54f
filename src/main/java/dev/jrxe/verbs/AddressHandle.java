package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * An address handle ({@code struct ibv_ah}): where a UD or SRD send goes, made by
 * {@link ProtectionDomain#createAh(AhAttr)}. RoCEv2 addresses by GID, so the attributes must be
 * global (a GRH) with an IPv4-mapped destination GID (a unicast address, or an IPv4 multicast
 * group) and a valid source GID index. Handles count against the device's {@code max_ah}; a
 * destroyed handle cannot be used for new sends (EINVAL at post time), nor can one of another
 * protection domain than the QP's.
 *
 * <p>Thread safe: its attributes never change, so any number of QPs and threads may send with it
 * at once; {@link #close()} may run alongside (sends posted after it fail).
 *
 * <pre>{@code
 * AddressHandle ah = pd.createAh(new AhAttr(Gid.ofIpv4(peerAddr), Device.IPV4_GID_INDEX));
 * wr.ah = ah; wr.remoteQpn = peerQpn; wr.remoteQkey = QKEY;
 * qp.postSend(wr);
 * ah.close();
 * }</pre>
 */
public final class AddressHandle implements AutoCloseable {
    private final ProtectionDomain pd;
    private final AhAttr attr;
    private volatile boolean closed;

    AddressHandle(ProtectionDomain pd, AhAttr attr) {
        check(pd.device(), attr);
        this.pd = pd;
        this.attr = attr.copy();
        pd.device().reserveAh();
        pd.device().childCreated(this);
    }

    private static void check(Device device, AhAttr attr) {
        if (attr == null || !attr.isGlobal || attr.dgid == null || !attr.dgid.isIpv4()) {
            throw VerbsException.einval("RoCEv2 address handles need a GRH with an IPv4-mapped destination GID");
        }
        int a = attr.dgid.ipv4();
        if (a == 0 || a == -1) {
            throw VerbsException.einval("destination " + attr.dgid + " is not an address");
        }
        if (attr.portNum != 1) {
            throw VerbsException.einval("port " + attr.portNum + " does not exist");
        }
        if (!device.gidValid(attr.sgidIndex)) {
            throw VerbsException.einval("sgid_index " + attr.sgidIndex);
        }
        if (attr.hopLimit < 0 || attr.hopLimit > 255 || attr.trafficClass < 0 || attr.trafficClass > 255
            || (attr.flowLabel & ~0xFFFFF) != 0) {
            throw VerbsException.einval("GRH fields out of range");
        }
    }

    /** {@return the protection domain the handle belongs to} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return a copy of the attributes it was created with} */
    public AhAttr attr() {
        return attr.copy();
    }

    /** {@return the destination IPv4 address (of {@code dgid}), as a big-endian int} */
    public int destAddr() {
        return attr.dgid.ipv4();
    }

    boolean closed() {
        return closed;
    }

    /** {@code ibv_destroy_ah}; destroying twice is harmless. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            pd.device().childClosed(this);
            pd.device().ahClosed();
        }
    }

    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * {@code ibv_init_ah_from_wc}: the attributes of a handle that answers the sender of a UD
     * receive, from its completion and the 40-byte GRH area at the start of its buffer. Over
     * RoCEv2/IPv4 that area holds the IPv4 header in its last 20 bytes (checked: version 4, IHL 5,
     * a valid checksum), else an IPv6 GRH whose source GID must be IPv4-mapped. As libibverbs: the
     * destination GID is the datagram's source, the source GID index is the local GID the datagram
     * was sent to (1, the IPv4-mapped one; a multicast destination picks it too), hop limit 0xFF.
     *
     * <p>Any thread may call it: it reads only its arguments.
     *
     * @param device the device that received the datagram
     * @param port   the port it arrived on; 1 (else EINVAL)
     * @param wc     the receive's completion; its {@code wcFlags} must have {@code IBV_WC_GRH}
     * @param grh    at least the first 40 bytes of the receive's buffer
     * @return new attributes addressing the sender, for {@link ProtectionDomain#createAh(AhAttr)}
     * @throws VerbsException EINVAL for another port, without {@code IBV_WC_GRH}, for a GRH area
     *     shorter than 40 bytes, or when it holds neither a valid IPv4 header nor a GRH with an
     *     IPv4-mapped source GID
     */
    public static AhAttr initFromWc(Device device, int port, WorkCompletion wc, MemorySegment grh) {
        if (port != 1) {
            throw VerbsException.einval("port " + port + " does not exist");
        }
        if ((wc.wcFlags & dev.jrxe.ib.WcFlags.GRH) == 0) {
            throw VerbsException.einval("the completion has no GRH: RoCE needs one to answer");
        }
        if (grh == null || grh.byteSize() < 40) {
            throw VerbsException.einval("a GRH area has 40 bytes");
        }
        int src;
        int tclass;
        int flowLabel = 0;
        if (isIpv4Header(grh, 20)) {
            src = grh.get(BE_INT, 32);
            tclass = grh.get(ValueLayout.JAVA_BYTE, 21) & 0xFF;
        } else if ((grh.get(ValueLayout.JAVA_BYTE, 0) & 0xF0) == 0x60) {
            byte[] sgid = grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE);
            Gid g = new Gid(sgid);
            if (!g.isIpv4()) {
                throw VerbsException.einval("the GRH's source GID is not IPv4-mapped");
            }
            src = g.ipv4();
            int w0 = grh.get(BE_INT, 0);
            tclass = (w0 >>> 20) & 0xFF;
            flowLabel = w0 & 0xFFFFF;
        } else {
            throw new VerbsException(Errno.EINVAL, "the GRH area holds neither an IPv4 header nor a GRH");
        }
        AhAttr a = new AhAttr(Gid.ofIpv4(src), 1);
        a.isGlobal = true;
        a.hopLimit = 0xFF;
        a.trafficClass = tclass;
        a.flowLabel = flowLabel;
        a.dlid = wc.slid;
        a.sl = wc.sl;
        a.srcPathBits = wc.dlidPathBits;
        a.portNum = port;
        return a;
    }

    /** libibverbs' test for an IPv4 header in a GRH area: version 4, IHL 5, checksum right. */
    private static boolean isIpv4Header(MemorySegment s, long off) {
        if ((s.get(ValueLayout.JAVA_BYTE, off) & 0xFF) != 0x45) {
            return false;
        }
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((s.get(ValueLayout.JAVA_BYTE, off + i) & 0xFF) << 8) | (s.get(ValueLayout.JAVA_BYTE, off + i + 1) & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum == 0xFFFF;
    }
}
