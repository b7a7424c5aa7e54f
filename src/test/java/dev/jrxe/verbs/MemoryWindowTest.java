package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Memory windows end to end over real UDP: rdma-core's test_mr.py MW cases (one test each, named
 * after it), then every bind and invalidation rule of rxe_mw.c with its completion status, and
 * the rules jrxe keeps stricter than rxe (a window's own range, type 2 only on its QP).
 */
class MemoryWindowTest {
    private static final int MSG = 1024;
    /** test_mr.py's MWRC: the MR allows no remote access at all, only binding windows. */
    private static final int MR_ACCESS = Access.LOCAL_WRITE | Access.MW_BIND;

    /** Both sides: a region with MW_BIND only, a QP pair allowing remote writes. */
    private static final class Pair implements AutoCloseable {
        final RcFixture f = new RcFixture(4 * MSG);
        final MemoryRegion mwMrA;
        final MemoryRegion mwMrB;

        Pair() {
            mwMrA = f.pda.registerMemory(f.bufA.asSlice(2 * MSG, MSG), MR_ACCESS);
            mwMrB = f.pdb.registerMemory(f.bufB.asSlice(2 * MSG, MSG), MR_ACCESS);
            f.connect(new QpCap(64, 64, 4, 4, 64), new RcConnect());
        }

        /** A signaled WRITE of {@code len} bytes from A's buffer to B's {@code addr} under {@code rkey}. */
        WorkCompletion writeAtoB(long addr, int rkey, int len) {
            SendWr w = new SendWr(1);
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            w.wrId = 77;
            w.sge(f.bufA.address(), len, f.mra.lkey()).rdma(addr, rkey);
            f.qa.postSend(w);
            return f.poll(f.cqa);
        }

        @Override
        public void close() {
            f.close();
        }
    }

    private static SendWr bindWr(MemoryWindow mw, MemoryRegion mr, long addr, long len, int access) {
        SendWr w = new SendWr(1).bindMw(mw, MemoryWindow.incRkey(mw.rkey()), mr, addr, len, access);
        w.sendFlags = SendFlags.SIGNALED;
        w.wrId = 5;
        return w;
    }

    @Test
    @DisplayName("test_mw_type1")
    void shouldWriteThroughATypeOneWindow() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int old = mw.rkey();
            int rkey = p.f.qb.bindMw(mw, 9, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG,
                Access.REMOTE_WRITE | Access.LOCAL_WRITE);
            assertThat(rkey).isEqualTo(MemoryWindow.incRkey(old)).isEqualTo(mw.rkey());
            WorkCompletion bind = p.f.pollOk(p.f.cqb);
            assertThat(bind.opcode).isEqualTo(WcOpcode.BIND_MW);
            assertThat(bind.wrId).isEqualTo(9);
            RcFixture.fill(p.f.bufA, 0, MSG, 1);
            assertThat(p.writeAtoB(p.mwMrB.addr(), rkey, MSG).status).isEqualTo(WcStatus.SUCCESS);
            RcFixture.assertFilled(p.f.bufB, 2 * MSG, MSG, 1);
        }
    }

    @Test
    @DisplayName("test_mw_ex_type1")
    void shouldWriteThroughATypeOneWindowOverAnAddressRegisteredRegion() {
        try (Pair p = new Pair()) {
            // MREx in pyverbs: the region registered by address, not by segment
            MemoryRegion mr = p.f.pdb.registerMemory(p.f.bufB.address() + 3 * MSG, MSG, MR_ACCESS);
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int rkey = p.f.qb.bindMw(mw, 9, SendFlags.SIGNALED, mr, mr.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            RcFixture.fill(p.f.bufA, 0, MSG, 2);
            assertThat(p.writeAtoB(mr.addr(), rkey, MSG).status).isEqualTo(WcStatus.SUCCESS);
            RcFixture.assertFilled(p.f.bufB, 3 * MSG, MSG, 2);
        }
    }

    @Test
    @DisplayName("test_invalidate_mw_type1")
    void shouldRefuseTheOldKeyOnceATypeOneWindowIsUnboundByALengthZeroBind() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int rkey = p.f.qb.bindMw(mw, 1, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            p.f.qb.bindMw(mw, 2, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), 0, 0);
            p.f.pollOk(p.f.cqb);
            p.f.bufB.asSlice(2 * MSG, MSG).fill((byte) 0x5A);
            assertThat(WcStatus.str(p.writeAtoB(p.mwMrB.addr(), rkey, 64).status)).isEqualTo("remote access error");
            assertThat(p.f.bufB.asSlice(2 * MSG, MSG).elements(ValueLayout.JAVA_BYTE).allMatch(b -> b.get(ValueLayout.JAVA_BYTE, 0) == 0x5A))
                .isTrue();
        }
    }

    @Test
    @DisplayName("test_mw_type2")
    void shouldWriteThroughATypeTwoWindowBoundByAWorkRequest() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            SendWr bind = bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE | Access.LOCAL_WRITE);
            p.f.qb.postSend(bind);
            assertThat(p.f.pollOk(p.f.cqb).opcode).isEqualTo(WcOpcode.BIND_MW);
            RcFixture.fill(p.f.bufA, 0, MSG, 3);
            assertThat(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), MSG).status).isEqualTo(WcStatus.SUCCESS);
            RcFixture.assertFilled(p.f.bufB, 2 * MSG, MSG, 3);
        }
    }

    @Test
    @DisplayName("test_mw_type2_invalidate_local")
    void shouldRefuseATypeTwoWindowAfterLocalInvalidation() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            SendWr inv = new SendWr(1);
            inv.opcode = WrOpcode.LOCAL_INV;
            inv.invalidateRkey = mw.rkey();
            inv.sendFlags = SendFlags.SIGNALED;
            p.f.qb.postSend(inv);
            assertThat(p.f.pollOk(p.f.cqb).opcode).isEqualTo(WcOpcode.LOCAL_INV);
            assertThat(mw.state()).isEqualTo(dev.jrxe.memory.MemoryWindow.FREE);
            assertThat(WcStatus.str(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 64).status)).isEqualTo("remote access error");
        }
    }

    @Test
    @DisplayName("test_mw_type2_invalidate_remote")
    void shouldRefuseATypeTwoWindowAfterThePeerSentWithInvalidate() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            RecvWr recv = new RecvWr(1);
            recv.sge(p.f.bufB.address(), 64, p.f.mrb.lkey());
            p.f.qb.postRecv(recv);
            SendWr send = new SendWr(1);
            send.opcode = WrOpcode.SEND_WITH_INV;
            send.invalidateRkey = mw.rkey();
            send.sendFlags = SendFlags.SIGNALED;
            send.numSge = 0;
            p.f.qa.postSend(send);
            assertThat(p.f.pollOk(p.f.cqa).opcode).isEqualTo(WcOpcode.SEND);
            WorkCompletion r = p.f.pollOk(p.f.cqb);
            assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
            assertThat(r.wcFlags & dev.jrxe.ib.WcFlags.WITH_INV).isNotZero();
            assertThat(r.invalidatedRkey).isEqualTo(mw.rkey());
            assertThat(WcStatus.str(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 64).status)).isEqualTo("remote access error");
        }
    }

    @Test
    @DisplayName("test_mw_type2_invalidate_dealloc")
    void shouldRefuseATypeTwoWindowAfterDealloc() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            assertThat(p.mwMrB.region().heldByKeys()).isEqualTo(1);
            mw.close();
            assertThat(p.mwMrB.region().heldByKeys()).isZero();
            assertThat(WcStatus.str(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 64).status)).isEqualTo("remote access error");
        }
    }

    @Test
    @DisplayName("test_reg_mw_wrong_type")
    void shouldRefuseAWindowOfTypeThree() {
        try (Pair p = new Pair()) {
            assertThatThrownBy(() -> p.f.pdb.allocMw(3)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_bind_mw (classic post): a window without REMOTE_WRITE refuses a write")
    void shouldRefuseAWriteThroughAWindowBoundWithoutRemoteWrite() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.LOCAL_WRITE));
            p.f.pollOk(p.f.cqb);
            assertThat(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 8).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    // ---------------------------------------------------------------- rxe_mw.c's bind rules

    /** Posts {@code bind} on B and returns the completion status (the QP goes to ERR on failure). */
    private static int bindStatus(Pair p, SendWr bind) {
        p.f.qb.postSend(bind);
        return p.f.poll(p.f.cqb).status;
    }

    @Test
    void shouldFailBindsThatBreakTheRulesWithMwBindErr() {
        int rw = Access.REMOTE_WRITE;
        // type 2 bound twice without invalidation (o10-37.2.30)
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, rw))).isEqualTo(WcStatus.SUCCESS);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
            assertThat(p.f.qb.state()).isEqualTo(dev.jrxe.ib.QpState.ERR);
        }
        // type 2 with length 0 (o10-37.2.40)
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr(), 0, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        // the region lacks MW_BIND (C10-73)
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.f.mrb, p.f.mrb.addr(), MSG, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        // REMOTE_WRITE on a region without LOCAL_WRITE (C10-74)
        try (Pair p = new Pair()) {
            MemoryRegion ro = p.f.pdb.registerMemory(p.f.bufB.asSlice(3 * MSG, MSG), Access.MW_BIND);
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, ro, ro.addr(), MSG, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        // a window reaching past its region (C10-75), VA based and zero based
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr() + 8, MSG, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG + 1, rw | Access.ZERO_BASED)))
                .isEqualTo(WcStatus.MW_BIND_ERR);
        }
        // a window of another PD (C10-72)
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.b.allocPd().allocMw(MemoryWindow.TYPE_2);
            assertThat(bindStatus(p, bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, rw))).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        // a key that is not the window's current one
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            SendWr w = bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, rw);
            mw.posted(mw.rkey() ^ 0x40); // as if the application had lost track of the rkey
            w.mw = mw;
            assertThat(bindStatus(p, w)).isEqualTo(WcStatus.MW_BIND_ERR);
        }
    }

    @Test
    void shouldRefuseTypeOneBindsLibibverbsRefuses() {
        try (Pair p = new Pair()) {
            MemoryWindow t1 = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            MemoryWindow t2 = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            assertThatThrownBy(() -> p.f.qb.bindMw(t2, 1, 0, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThatThrownBy(() -> p.f.qb.bindMw(t1, 1, 0, p.mwMrB, p.mwMrB.addr(), MSG,
                Access.REMOTE_WRITE | Access.ZERO_BASED)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            MemoryRegion otherPd = p.f.b.allocPd().registerMemory(p.f.bufB.asSlice(3 * MSG, MSG), MR_ACCESS);
            assertThatThrownBy(() -> p.f.qb.bindMw(t1, 1, 0, otherPd, otherPd.addr(), MSG, Access.REMOTE_WRITE))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EPERM));
            assertThat(t1.rkey()).as("nothing was posted").isEqualTo(t1.currentKey());
        }
    }

    @Test
    void shouldFailLocalInvalidationOfARegionOrATypeOneWindowWithLocQpOpErr() {
        try (Pair p = new Pair()) {
            SendWr inv = new SendWr(1);
            inv.opcode = WrOpcode.LOCAL_INV;
            inv.invalidateRkey = p.f.mrb.rkey();
            p.f.qb.postSend(inv);
            assertThat(p.f.poll(p.f.cqb).status).isEqualTo(WcStatus.LOC_QP_OP_ERR);
            assertThat(p.f.mrb.region().isValid()).isTrue();
        }
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int rkey = p.f.qb.bindMw(mw, 1, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            SendWr inv = new SendWr(1);
            inv.opcode = WrOpcode.LOCAL_INV;
            inv.invalidateRkey = rkey;
            p.f.qb.postSend(inv);
            assertThat(p.f.poll(p.f.cqb).status).isEqualTo(WcStatus.LOC_QP_OP_ERR); // o10-37.2.26
        }
    }

    @Test
    void shouldFailADeregistrationWhileWindowsAreBoundWithEbusy() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            p.f.qb.bindMw(mw, 1, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            assertThatThrownBy(p.mwMrB::close).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            assertThat(p.mwMrB.region().isValid()).isTrue();
            mw.close();
            p.mwMrB.close();
            assertThat(p.mwMrB.region().isValid()).isFalse();
        }
    }

    @Test
    void shouldRefuseAReregistrationWhileWindowsAreBoundWithEbusy() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            ProtectionDomain other = p.f.b.allocPd();
            // a window rests on its region's PD, rights and memory: moving any of them under it
            // would let the window's rkey reach another PD's memory
            assertThatThrownBy(() -> p.mwMrB.rereg(dev.jrxe.ib.Rereg.CHANGE_PD, other, null, 0))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            assertThatThrownBy(() -> p.mwMrB.rereg(dev.jrxe.ib.Rereg.CHANGE_ACCESS, null, null, Access.MW_BIND))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            assertThat(p.mwMrB.pd()).isSameAs(p.f.pdb);
            assertThat(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 8).status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void shouldFinishAReadThroughAWindowBeforeASendWithInvalidateBehindItInvalidatesIt() {
        try (Pair p = new Pair()) {
            // a readable window over 1 MiB of a larger region
            MemoryRegion big = p.f.pdb.registerMemory(p.f.arena.allocate(1 << 21, 4096), MR_ACCESS);
            MemorySegment bigMem = MemorySegment.ofAddress(big.addr()).reinterpret(1 << 21);
            RcFixture.fill(bigMem, 0, 1 << 20, 6);
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, big, big.addr(), 1 << 20, Access.REMOTE_READ));
            p.f.pollOk(p.f.cqb);
            RecvWr recv = new RecvWr(1);
            recv.sge(p.f.bufB.address(), 64, p.f.mrb.lkey());
            p.f.qb.postRecv(recv);
            MemorySegment dst = p.f.arena.allocate(1 << 20, 4096);
            MemoryRegion dstMr = p.f.pda.registerMemory(dst, Access.LOCAL_WRITE);
            SendWr read = new SendWr(1);
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            read.sge(dst.address(), 96 * 1024, dstMr.lkey()).rdma(big.addr(), mw.rkey());
            SendWr inv = new SendWr(1);
            inv.opcode = WrOpcode.SEND_WITH_INV;
            inv.invalidateRkey = mw.rkey();
            inv.sendFlags = SendFlags.SIGNALED;
            // 96 responses at MTU 1024: more than the 64 a cycle sends, fewer than the 128 PSNs the
            // requester may have unacknowledged, so the SEND (no fence) arrives while they go out
            read.next = inv;
            p.f.qa.postSend(read);
            assertThat(p.f.pollOk(p.f.cqa).opcode).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(p.f.pollOk(p.f.cqa).opcode).isEqualTo(WcOpcode.SEND);
            assertThat(p.f.pollOk(p.f.cqb).invalidatedRkey).isEqualTo(mw.rkey());
            RcFixture.assertFilled(dst, 0, 96 * 1024, 6);
            assertThat(mw.state()).isEqualTo(dev.jrxe.memory.MemoryWindow.FREE);
        }
    }

    // ---------------------------------------------------------------- what a window grants

    @Test
    void shouldTranslateZeroBasedWindowsAndKeepEveryAccessInsideTheWindow() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            // 256 bytes at offset 512 of the region, addressed from 0
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr() + 512, 256, Access.REMOTE_WRITE | Access.ZERO_BASED));
            p.f.pollOk(p.f.cqb);
            RcFixture.fill(p.f.bufA, 0, 256, 4);
            assertThat(p.writeAtoB(0, mw.rkey(), 256).status).isEqualTo(WcStatus.SUCCESS);
            RcFixture.assertFilled(p.f.bufB, 2 * MSG + 512, 256, 4);
        }
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr() + 512, 256, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            p.f.bufB.fill((byte) 0x11);
            // inside the region, one byte past the window: rxe would allow it, jrxe does not
            assertThat(p.writeAtoB(p.mwMrB.addr() + 512, mw.rkey(), 257).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
            MemorySegment b = p.f.bufB;
            for (long i = 0; i < b.byteSize(); i++) {
                assertThat(b.get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x11);
            }
        }
    }

    @Test
    void shouldServeATypeTwoWindowOnlyOnTheQpThatBoundIt() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_2);
            p.f.qb.postSend(bindWr(mw, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE));
            p.f.pollOk(p.f.cqb);
            // a second QP pair between the same PDs: B's other QP never bound the window
            QueuePair qa2 = p.f.pda.createQp(new QpInitAttr(QpType.RC, p.f.cqa, p.f.cqa, new QpCap(8, 8, 1, 1, 0)));
            QueuePair qb2 = p.f.pdb.createQp(new QpInitAttr(QpType.RC, p.f.cqb, p.f.cqb, new QpCap(8, 8, 1, 1, 0)));
            new RcConnect().pair(qa2, 100, qb2, 200);
            SendWr w = new SendWr(1);
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            w.sge(p.f.bufA.address(), 8, p.f.mra.lkey()).rdma(p.mwMrB.addr(), mw.rkey());
            qa2.postSend(w);
            assertThat(p.f.poll(p.f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(p.writeAtoB(p.mwMrB.addr(), mw.rkey(), 8).status).as("its own QP still may")
                .isEqualTo(WcStatus.SUCCESS);
            qa2.close();
            qb2.close();
        }
    }

    @Test
    void shouldNeverServeAWindowAsAnLkeyOrAfterItWasReboundUnderANewKey() {
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int first = p.f.qb.bindMw(mw, 1, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            int second = p.f.qb.bindMw(mw, 2, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG, Access.REMOTE_WRITE);
            p.f.pollOk(p.f.cqb);
            assertThat(second).isNotEqualTo(first);
            assertThat(p.writeAtoB(p.mwMrB.addr(), second, 8).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(p.writeAtoB(p.mwMrB.addr(), first, 8).status).as("the old rkey").isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
        try (Pair p = new Pair()) {
            MemoryWindow mw = p.f.pdb.allocMw(MemoryWindow.TYPE_1);
            int rkey = p.f.qb.bindMw(mw, 1, SendFlags.SIGNALED, p.mwMrB, p.mwMrB.addr(), MSG,
                Access.REMOTE_WRITE | Access.LOCAL_WRITE);
            p.f.pollOk(p.f.cqb);
            // the window's key as the lkey of a local SEND: refused before anything is sent
            SendWr send = new SendWr(1);
            send.sendFlags = SendFlags.SIGNALED;
            send.sge(p.mwMrB.addr(), 8, rkey);
            p.f.qb.postSend(send);
            assertThat(p.f.poll(p.f.cqb).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    void shouldFailSendWithInvalidateOfARegisteredRegionAtTheReceiverAsRxeDoes() {
        try (Pair p = new Pair()) {
            RecvWr recv = new RecvWr(1);
            recv.sge(p.f.bufB.address(), 64, p.f.mrb.lkey());
            p.f.qb.postRecv(recv);
            SendWr send = new SendWr(1);
            send.opcode = WrOpcode.SEND_WITH_INV;
            send.invalidateRkey = p.f.mrb.rkey();
            send.sendFlags = SendFlags.SIGNALED;
            p.f.qa.postSend(send);
            // rxe's class J: the receive completes with REM_INV_REQ_ERR, the key stays valid, the
            // sender's message is acknowledged
            assertThat(p.f.poll(p.f.cqb).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
            assertThat(p.f.poll(p.f.cqa).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(p.f.mrb.region().isValid()).isTrue();
        }
    }
}
