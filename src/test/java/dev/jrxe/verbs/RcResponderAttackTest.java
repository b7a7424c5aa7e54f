package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcVictim.PEER_START_PSN;
import static dev.jrxe.verbs.RcVictim.VICTIM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the RC responder from a connected peer that sends what it likes (a {@link RawPeer}):
 * every memory access it provokes must be one that a key it holds allows, and whatever it
 * sends, the victim's regions stay intact.
 */
class RcResponderAttackTest {
    private static final byte SECRET = 0x5A;
    private static final byte PUBLIC = 0x11;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private static void read(RcVictim v, int psn, long va, int rkey, int length) {
        PacketWriter w = v.peer.begin(Opcodes.RC_RDMA_READ_REQUEST, v.qp.qpNum(), psn);
        w.bth().ackReq(true);
        w.reth().va(va).rkey(rkey).dmaLength(length);
        v.peer.send(0, VICTIM);
    }

    private static void assertNoSecretLeft(List<RawPeer.Packet> packets) {
        for (RawPeer.Packet p : packets) {
            assertThat(RcVictim.contains(p.payload(), SECRET)).as("secret bytes in %s", p).isFalse();
        }
    }

    @Test
    void shouldServeADuplicateReadOnlyInsideTheOriginalRequest() {
        try (RcVictim v = new RcVictim().connect()) {
            MemorySegment pub = v.memory(4096, PUBLIC);
            MemorySegment secret = v.memory(4096, SECRET);
            MemoryRegion r = v.pd.registerMemory(pub, Access.LOCAL_WRITE | Access.REMOTE_READ);
            v.pd.registerMemory(secret, Access.LOCAL_WRITE);
            int psn = PEER_START_PSN;
            read(v, psn, pub.address(), r.rkey(), 64);
            RawPeer.Packet first = v.peer.await(RawPeer.Packet::isReadResponse, 5000);
            assertThat(first).isNotNull();
            assertThat(first.payload()).hasSize(64);
            v.peer.clear();

            // the same PSN again, pointing the stored key at memory the original did not cover
            read(v, psn, secret.address(), r.rkey(), 1024);
            read(v, psn, pub.address(), r.rkey(), 4096);
            read(v, psn, pub.address() - 64, r.rkey(), 64);
            List<RawPeer.Packet> after = v.peer.quietFor(300);
            assertNoSecretLeft(after);
            assertThat(after).as("no response to a duplicate beyond the original READ").isEmpty();

            // a true duplicate is still answered (replayed from the memory it read the first time)
            read(v, psn, pub.address(), r.rkey(), 64);
            RawPeer.Packet replay = v.peer.await(RawPeer.Packet::isReadResponse, 5000);
            assertThat(replay).isNotNull();
            assertThat(replay.psn()).isEqualTo(psn);
            assertThat(replay.payload()).hasSize(64).containsOnly(PUBLIC);
        }
    }

    @Test
    void shouldNotLetAZeroLengthReadOpenAPathThroughALocalOnlyKey() {
        // the attack from the review: rc-pingpong -O's QP (no remote access) and its implicit
        // ODP region (local only, whole address space), a zero-length READ naming the lkey, then
        // a "duplicate" of it with a length
        try (RcVictim v = new RcVictim().connect(new RcConnect().accessFlags(0))) {
            MemorySegment secret = v.memory(4096, SECRET);
            MemoryRegion implicit = v.pd.registerMemory(0, -1L, Access.LOCAL_WRITE | Access.ON_DEMAND);
            int psn = PEER_START_PSN;
            read(v, psn, 0, implicit.lkey(), 0);
            read(v, psn, secret.address(), implicit.lkey(), 1024);
            List<RawPeer.Packet> got = v.peer.quietFor(500);
            assertNoSecretLeft(got);
            assertThat(got).as("a READ on a QP without REMOTE_READ is an invalid request (rxe)").isNotEmpty();
            assertThat(got.get(0).isAck()).isTrue();
            assertThat(got.get(0).syndrome()).isEqualTo(Aeth.NAK_INVALID_REQ);
            assertThat(got.stream().filter(RawPeer.Packet::isReadResponse)).isEmpty();
            assertThat(v.qp.state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    void shouldAnswerAZeroLengthReadWithoutRememberingAPathToMemory() {
        try (RcVictim v = new RcVictim().connect()) {
            MemorySegment secret = v.memory(4096, SECRET);
            MemoryRegion local = v.pd.registerMemory(secret, Access.LOCAL_WRITE);
            int psn = PEER_START_PSN;
            read(v, psn, 0, local.lkey(), 0);
            RawPeer.Packet empty = v.peer.await(RawPeer.Packet::isReadResponse, 5000);
            assertThat(empty).isNotNull();
            assertThat(empty.payload()).isEmpty();
            v.peer.clear();
            read(v, psn, secret.address(), local.lkey(), 1024);
            List<RawPeer.Packet> after = v.peer.quietFor(300);
            assertNoSecretLeft(after);
            assertThat(after).isEmpty();
        }
    }

    @Test
    void shouldNotLetSendWithInvalidateBreakARegionItMayNotInvalidate() {
        try (RcVictim v = new RcVictim().connect()) {
            MemorySegment buf = v.memory(4096, (byte) 0);
            MemoryRegion mr = v.pd.registerMemory(buf, Access.LOCAL_WRITE);
            RecvWr recv = new RecvWr(1).sge(buf.address(), 4096, mr.lkey());
            recv.wrId = 7;
            v.qp.postRecv(recv);
            PacketWriter w = v.peer.begin(Opcodes.RC_SEND_ONLY_WITH_INVALIDATE, v.qp.qpNum(), PEER_START_PSN);
            w.bth().ackReq(true);
            w.ieth().rkey(mr.lkey());
            v.peer.payload(16).fill((byte) 3);
            v.peer.send(16, VICTIM);
            WorkCompletion wc = v.pollOne(5000);
            assertThat(wc).isNotNull();
            assertThat(wc.wrId).isEqualTo(7);
            assertThat(WcStatus.str(wc.status)).isEqualTo(WcStatus.str(WcStatus.REM_INV_REQ_ERR));
            assertThat(wc.wcFlags & WcFlags.WITH_INV).isZero();
            // rxe (class J): the message is acknowledged, the QP goes to the error state
            RawPeer.Packet ack = v.peer.await(RawPeer.Packet::isAck, 5000);
            assertThat(ack).isNotNull();
            assertThat(ack.syndrome() & 0xE0).isEqualTo(Aeth.ACK & 0xE0);
            assertThat(v.qp.state()).isEqualTo(QpState.ERR);
            // the region still works for its owner
            assertThat(v.dev.keys().lookup(mr.lkey())).isNotNull();
            assertThat(v.dev.keys().lookup(mr.lkey()).check(v.pd.handle(), Access.LOCAL_WRITE, buf.address(), 4096))
                .isEqualTo(MemStatus.OK);
        }
    }

    @Test
    void shouldRejectAReadLongerThanTheLargestMessage() {
        try (RcVictim v = new RcVictim().connect()) {
            MemorySegment buf = v.memory(4096, PUBLIC);
            // an implicit region: the key covers the whole address space, so only the length check stops it
            MemoryRegion all = v.pd.registerMemory(0, -1L, ALL | Access.ON_DEMAND);
            read(v, PEER_START_PSN, buf.address(), all.rkey(), 0x80000001);
            List<RawPeer.Packet> got = v.peer.quietFor(500);
            assertThat(got).isNotEmpty();
            assertThat(got.get(0).isAck()).as("first answer %s", got.get(0)).isTrue();
            assertThat(got.get(0).syndrome()).isEqualTo(Aeth.NAK_INVALID_REQ);
            assertThat(got.stream().filter(RawPeer.Packet::isReadResponse)).isEmpty();
        }
    }

    @Test
    void shouldRejectReadsAndAtomicsWhenMaxDestRdAtomicIsZero() {
        for (boolean atomic : new boolean[] {false, true}) {
            try (RcVictim v = new RcVictim().connect(new RcConnect().rdAtomic(1, 0))) {
                MemorySegment buf = v.memory(4096, PUBLIC);
                MemoryRegion r = v.pd.registerMemory(buf, ALL);
                if (atomic) {
                    PacketWriter w = v.peer.begin(Opcodes.RC_FETCH_ADD, v.qp.qpNum(), PEER_START_PSN);
                    w.bth().ackReq(true);
                    w.atomicEth().va(buf.address()).rkey(r.rkey()).swapAdd(1);
                    v.peer.send(0, VICTIM);
                } else {
                    read(v, PEER_START_PSN, buf.address(), r.rkey(), 8);
                }
                List<RawPeer.Packet> got = v.peer.quietFor(300);
                assertThat(got).as(atomic ? "atomic" : "read").hasSize(1);
                assertThat(got.get(0).isAck()).isTrue();
                assertThat(got.get(0).syndrome()).isEqualTo(Aeth.NAK_INVALID_REQ);
                assertThat(v.qp.state()).isEqualTo(QpState.ERR);
            }
        }
    }
}
