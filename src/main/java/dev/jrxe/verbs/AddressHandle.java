package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * An address handle ({@code ibv_ah}): where a UD send goes. RoCEv2 addresses by GID, so the
 * attributes must be global (a GRH) with an IPv4-mapped destination GID (a unicast address, or
 * an IPv4 multicast group) and a valid source GID index. Handles count against the device's
 * {@code max_ah}; a destroyed handle cannot be used for new sends (EINVAL at post time).
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

    public ProtectionDomain pd() {
        return pd;
    }

    public AhAttr attr() {
        return attr.copy();
    }

    /** Destination IPv4 address, big-endian int. */
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
     * @throws VerbsException EINVAL without IBV_WC_GRH, or when the GRH area is neither
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
