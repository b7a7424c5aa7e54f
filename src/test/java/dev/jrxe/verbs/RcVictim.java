package dev.jrxe.verbs;

import dev.jrxe.ib.QpType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A device on 127.0.0.2 with one RC QP connected to a {@link RawPeer} on 127.0.0.3: the peer is
 * whatever a test makes it, the victim is plain jrxe. The victim is served by its progress thread
 * unless the test polls.
 */
final class RcVictim implements AutoCloseable {
    static final String VICTIM = "127.0.0.2";
    static final String PEER = "127.0.0.3";
    /** The QPN the raw peer claims. */
    static final int PEER_QPN = 0x4242;
    /** The victim's receive PSN: the first PSN the peer's requests carry. */
    static final int PEER_START_PSN = 0x100;
    /** The victim's send PSN. */
    static final int VICTIM_START_PSN = 0x800000;

    final int port = RcFixture.nextPort();
    final Arena arena = Arena.ofShared();
    final Device dev;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final RawPeer peer;
    QueuePair qp;

    RcVictim() {
        this(DeviceConfig.of("victim", VICTIM), 1 << 20);
    }

    RcVictim(DeviceConfig config, int peerReceiveBuffer) {
        dev = Device.open(config.udpPort(port));
        pd = dev.allocPd();
        cq = dev.createCq(1024);
        peer = new RawPeer(PEER, port, PEER_QPN, peerReceiveBuffer);
    }

    /** Creates the victim's QP and connects it to the raw peer with {@code how}. */
    RcVictim connect(RcConnect how) {
        qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(64, 64, 4, 4, 64)));
        how.toInit(qp);
        how.toRts(qp, VICTIM_START_PSN, peer.gid(), PEER_QPN, PEER_START_PSN);
        return this;
    }

    RcVictim connect() {
        return connect(new RcConnect());
    }

    /** Native memory of the victim's, filled with {@code fill}. */
    MemorySegment memory(long size, byte fill) {
        MemorySegment m = arena.allocate(size, 4096);
        m.fill(fill);
        return m;
    }

    static boolean allBytes(MemorySegment m, byte value) {
        for (long i = 0; i < m.byteSize(); i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != value) {
                return false;
            }
        }
        return true;
    }

    static boolean contains(byte[] data, byte value) {
        for (byte b : data) {
            if (b == value) {
                return true;
            }
        }
        return false;
    }

    WorkCompletion pollOne(long millis) {
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(one) > 0) {
                return one[0];
            }
        }
        return null;
    }

    @Override
    public void close() {
        if (qp != null) {
            qp.close();
        }
        peer.close();
        dev.close();
        arena.close();
    }
}
