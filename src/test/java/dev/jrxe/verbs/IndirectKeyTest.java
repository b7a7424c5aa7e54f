package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.MkeySendOps;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Indirect memory keys (UMR) over real UDP: rdma-core's test_mlx5_mkey.py cases (one test each,
 * named after it) with its scattered-data check, the builder's bad flows with their errnos and
 * the batch rolled back, layouts over implicit-ODP children and mixed pinned/ODP entries, and
 * accesses beyond the layout.
 */
class IndirectKeyTest {
    private static final int MSG = 1024;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    /** test_mlx5_mkey's resources: RC, send ops SEND (+WRITE, READ, SEND_WITH_INV), max_inline_data 512. */
    private static final class Mk implements AutoCloseable {
        final RcFixture f = new RcFixture(4 * MSG);
        final QueuePair qa;
        final QueuePair qb;
        final QpEx xa;
        final QpEx xb;

        Mk() {
            qa = f.pda.createQp(init(f.cqa));
            qb = f.pdb.createQp(init(f.cqb));
            new RcConnect().pair(qa, 1, qb, 2);
            xa = qa.ex();
            xb = qb.ex();
        }

        private static QpInitAttr init(CompletionQueue cq) {
            QpInitAttr a = new QpInitAttr(QpType.RC, cq, cq, new QpCap(64, 64, 2, 2, 512));
            a.sendOpsFlags = SendOps.SEND | SendOps.SEND_WITH_INV | SendOps.RDMA_WRITE | SendOps.RDMA_READ
                | SendOps.LOCAL_INV;
            a.mkeySendOpsFlags = MkeySendOps.ALL;
            return a;
        }

        @Override
        public void close() {
            qa.close();
            qb.close();
            f.close();
        }
    }

    private static int status(RcFixture f, CompletionQueue cq) {
        return f.poll(cq).status;
    }

    /** Posts a configure built by {@code build} on {@code x} (SIGNALED|INLINE) and waits for its completion. */
    private static WorkCompletion configure(RcFixture f, QpEx x, CompletionQueue cq, java.util.function.Consumer<MkeyEx> build) {
        x.start();
        x.wrFlags = SendFlags.SIGNALED | SendFlags.INLINE;
        build.accept(MkeyEx.from(x));
        x.complete();
        return f.poll(cq);
    }

    /** The list layout of test_mlx5_mkey: {buf, 8} and {buf + 64, 8}. */
    private static Sge[] list(MemorySegment buf, int lkey) {
        return new Sge[]{new Sge(buf.address(), 8, lkey), new Sge(buf.address() + 64, 8, lkey)};
    }

    /** Its interleaved layout: {buf, 8, skip 2} and {buf + 64, 8, skip 2}, three times. */
    private static MkeyEx.Interleaved[] interleaved(MemorySegment buf, int lkey) {
        return new MkeyEx.Interleaved[]{new MkeyEx.Interleaved(buf.address(), 8, 2, lkey),
            new MkeyEx.Interleaved(buf.address() + 64, 8, 2, lkey)};
    }

    /**
     * traffic_scattered_data(sge_size=16): the client SENDs 16 bytes gathered through its key (at
     * 0) into a receive scattered through the server's key; the server's first 100 bytes must be
     * ('c'*8 + 's'*56)*2 truncated to 100.
     */
    private static void scatteredTraffic(Mk m, IndirectMemoryKey client, IndirectMemoryKey server) {
        m.f.bufA.fill((byte) 'c');
        m.f.bufB.fill((byte) 's');
        RecvWr r = new RecvWr(1).sge(0, 16, server.lkey());
        m.qb.postRecv(r);
        SendWr s = new SendWr(1).sge(0, 16, client.lkey());
        s.sendFlags = SendFlags.SIGNALED;
        m.qa.postSend(s);
        assertThat(WcStatus.str(m.f.poll(m.f.cqa).status)).isEqualTo("success");
        WorkCompletion rc = m.f.poll(m.f.cqb);
        assertThat(WcStatus.str(rc.status)).isEqualTo("success");
        assertThat(rc.byteLen).isEqualTo(16);
        String expect = ("c".repeat(8) + "s".repeat(56)).repeat(2).substring(0, 100);
        byte[] got = m.f.bufB.asSlice(0, 100).toArray(ValueLayout.JAVA_BYTE);
        assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo(expect);
    }

    private static IndirectMemoryKey[] keys(Mk m, int flags) {
        return new IndirectMemoryKey[]{m.f.pda.createIndirectKey(flags, 3), m.f.pdb.createIndirectKey(flags, 3)};
    }

    private static void localInv(Mk m, QueuePair qp, CompletionQueue cq, IndirectMemoryKey k) {
        SendWr inv = new SendWr(1);
        inv.opcode = WrOpcode.LOCAL_INV;
        inv.invalidateRkey = k.lkey();
        inv.sendFlags = SendFlags.SIGNALED;
        qp.postSend(inv);
        WorkCompletion w = m.f.pollOk(cq);
        assertThat(w.opcode).isEqualTo(WcOpcode.LOCAL_INV);
        assertThat(k.isConfigured()).isFalse();
    }

    @Test
    @DisplayName("test_mkey_interleaved")
    void shouldScatterThroughAnInterleavedKeyThenInvalidateIt() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            assertThat(k[0].maxEntries()).as("3 rounded up to a multiple of 4").isEqualTo(4);
            WorkCompletion ca = configure(m.f, m.xa, m.f.cqa, x -> x.mrInterleaved(k[0], Access.LOCAL_WRITE, 3,
                interleaved(m.f.bufA, m.f.mra.lkey())));
            assertThat(ca.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(ca.opcode).as("MLX5DV_WC_UMR = IBV_WC_DRIVER1").isEqualTo(WcOpcode.DRIVER1).isEqualTo(135);
            configure(m.f, m.xb, m.f.cqb, x -> x.mrInterleaved(k[1], Access.LOCAL_WRITE, 3,
                interleaved(m.f.bufB, m.f.mrb.lkey())));
            assertThat(k[0].length()).isEqualTo(48);
            scatteredTraffic(m, k[0], k[1]);
            localInv(m, m.qa, m.f.cqa, k[0]);
            localInv(m, m.qb, m.f.cqb, k[1]);
        }
    }

    @Test
    @DisplayName("test_mkey_list")
    void shouldScatterThroughAListKey() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            assertThat(configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k[0], Access.LOCAL_WRITE,
                list(m.f.bufA, m.f.mra.lkey()))).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(configure(m.f, m.xb, m.f.cqb, x -> x.mrList(k[1], Access.LOCAL_WRITE,
                list(m.f.bufB, m.f.mrb.lkey()))).status).isEqualTo(WcStatus.SUCCESS);
            scatteredTraffic(m, k[0], k[1]);
        }
    }

    @Test
    @DisplayName("test_mkey_list_new_api")
    void shouldConfigureAListKeyWithSetters() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            for (int side = 0; side < 2; side++) {
                MemorySegment buf = side == 0 ? m.f.bufA : m.f.bufB;
                int lkey = side == 0 ? m.f.mra.lkey() : m.f.mrb.lkey();
                IndirectMemoryKey key = k[side];
                assertThat(configure(m.f, side == 0 ? m.xa : m.xb, side == 0 ? m.f.cqa : m.f.cqb, x -> {
                    x.mkeyConfigure(key, 2);
                    x.setMkeyAccessFlags(Access.LOCAL_WRITE);
                    x.setMkeyLayoutList(list(buf, lkey));
                }).status).isEqualTo(WcStatus.SUCCESS);
            }
            scatteredTraffic(m, k[0], k[1]);
        }
    }

    @Test
    @DisplayName("test_mkey_interleaved_new_api")
    void shouldConfigureAnInterleavedKeyWithSetters() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            for (int side = 0; side < 2; side++) {
                MemorySegment buf = side == 0 ? m.f.bufA : m.f.bufB;
                int lkey = side == 0 ? m.f.mra.lkey() : m.f.mrb.lkey();
                IndirectMemoryKey key = k[side];
                assertThat(configure(m.f, side == 0 ? m.xa : m.xb, side == 0 ? m.f.cqa : m.f.cqb, x -> {
                    x.mkeyConfigure(key, 2);
                    x.setMkeyLayoutInterleaved(3, interleaved(buf, lkey)); // setters in either order
                    x.setMkeyAccessFlags(Access.LOCAL_WRITE);
                }).status).isEqualTo(WcStatus.SUCCESS);
            }
            scatteredTraffic(m, k[0], k[1]);
        }
    }

    @Test
    @DisplayName("test_odp_mkey_list_new_api")
    void shouldConfigureAListKeyOverOdpRegions() {
        try (Mk m = new Mk()) {
            MemoryRegion odpA = m.f.pda.registerMemory(m.f.bufA.asSlice(2 * MSG, 2 * MSG), Access.LOCAL_WRITE | Access.ON_DEMAND);
            MemoryRegion odpB = m.f.pdb.registerMemory(m.f.bufB.asSlice(2 * MSG, 2 * MSG), Access.LOCAL_WRITE | Access.ON_DEMAND);
            assertThat(odpA.region().isOnDemand()).isTrue();
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            configure(m.f, m.xa, m.f.cqa, x -> {
                x.mkeyConfigure(k[0], 2);
                x.setMkeyAccessFlags(Access.LOCAL_WRITE);
                x.setMkeyLayoutList(list(m.f.bufA.asSlice(2 * MSG), odpA.lkey()));
            });
            configure(m.f, m.xb, m.f.cqb, x -> {
                x.mkeyConfigure(k[1], 2);
                x.setMkeyAccessFlags(Access.LOCAL_WRITE);
                x.setMkeyLayoutList(list(m.f.bufB.asSlice(2 * MSG), odpB.lkey()));
            });
            m.f.bufA.fill((byte) 'c');
            m.f.bufB.fill((byte) 's');
            m.qb.postRecv(new RecvWr(1).sge(0, 16, k[1].lkey()));
            SendWr s = new SendWr(1).sge(0, 16, k[0].lkey());
            s.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(s);
            m.f.pollOk(m.f.cqa);
            m.f.pollOk(m.f.cqb);
            String expect = ("c".repeat(8) + "s".repeat(56)).repeat(2).substring(0, 100);
            assertThat(new String(m.f.bufB.asSlice(2 * MSG, 100).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII))
                .isEqualTo(expect);
        }
    }

    @Test
    @DisplayName("test_mkey_list_bad_flow")
    void shouldFailASendOfMoreThanTheLayoutHolds() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT);
            configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k[0], Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey())));
            m.qb.postRecv(new RecvWr(1).sge(m.f.bufB.address(), MSG, m.f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(0, 100, k[0].lkey()); // 100 bytes through a 16-byte key
            s.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(s);
            assertThat(status(m.f, m.f.cqa)).isEqualTo(WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    @DisplayName("test_mkey_remote_invalidate")
    void shouldInvalidateAKeyMadeForItByThePeersSendWithInvalidate() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey[] k = keys(m, IndirectMemoryKey.INDIRECT | IndirectMemoryKey.REMOTE_INVALIDATE);
            configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k[0], Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey())));
            configure(m.f, m.xb, m.f.cqb, x -> x.mrList(k[1], Access.LOCAL_WRITE, list(m.f.bufB, m.f.mrb.lkey())));
            scatteredTraffic(m, k[0], k[1]);
            m.qb.postRecv(new RecvWr(1).sge(m.f.bufB.address() + 2 * MSG, 16, m.f.mrb.lkey()));
            m.xa.start();
            m.xa.wrFlags = SendFlags.SIGNALED;
            m.xa.sendInv(k[1].rkey());
            m.xa.setSge(m.f.mra.lkey(), m.f.bufA.address(), 16);
            m.xa.complete();
            m.f.pollOk(m.f.cqa);
            WorkCompletion r = m.f.pollOk(m.f.cqb);
            assertThat(r.invalidatedRkey).isEqualTo(k[1].rkey());
            assertThat(k[1].isConfigured()).isFalse();
            // the traffic that follows fails: the server's receive through the invalidated key
            m.qb.postRecv(new RecvWr(1).sge(0, 16, k[1].lkey()));
            SendWr s = new SendWr(1).sge(0, 16, k[0].lkey());
            s.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(s);
            assertThat(status(m.f, m.f.cqb)).isNotEqualTo(WcStatus.SUCCESS);
        }
    }

    // ---------------------------------------------------------------- builder bad flows

    private static int errnoOfBatch(Mk m, int wrFlags, java.util.function.Consumer<MkeyEx> build) {
        m.xa.start();
        m.xa.wrFlags = wrFlags;
        // a good WRITE first: the failing configure must take it down with the batch
        m.xa.rdmaWrite(m.f.mrb.rkey(), m.f.bufB.address() + 3 * MSG);
        m.xa.setSge(m.f.mra.lkey(), m.f.bufA.address(), 8);
        build.accept(MkeyEx.from(m.xa));
        try {
            m.xa.complete();
            return 0;
        } catch (VerbsException e) {
            return e.errno();
        }
    }

    @Test
    void shouldRefuseBadConfigurationsWithTheirErrnosAndPostNothing() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey k = m.f.pda.createIndirectKey(IndirectMemoryKey.INDIRECT, 3);
            int lk = m.f.mra.lkey();
            long a = m.f.bufA.address();
            int inline = SendFlags.SIGNALED | SendFlags.INLINE;
            m.f.bufB.asSlice(3 * MSG, 8).fill((byte) 7);
            m.f.bufA.asSlice(0, 8).fill((byte) 1);
            assertThat(errnoOfBatch(m, SendFlags.SIGNALED, x -> x.mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, lk))))
                .as("no INLINE").isEqualTo(Errno.EOPNOTSUPP);
            assertThat(errnoOfBatch(m, inline, x -> x.mrList(k, Access.LOCAL_WRITE, new Sge(a, 8, lk), new Sge(a, 8, lk),
                new Sge(a, 8, lk), new Sge(a, 8, lk), new Sge(a, 8, lk)))).as("5 entries in a key of 4").isEqualTo(Errno.ENOMEM);
            assertThat(errnoOfBatch(m, inline, x -> x.mrInterleaved(k, Access.LOCAL_WRITE, 2,
                new MkeyEx.Interleaved(a, 8, 0, lk), new MkeyEx.Interleaved(a, 8, 0, lk),
                new MkeyEx.Interleaved(a, 8, 0, lk), new MkeyEx.Interleaved(a, 8, 0, lk))))
                .as("an interleaving takes one entry fewer").isEqualTo(Errno.ENOMEM);
            assertThat(errnoOfBatch(m, inline, x -> x.mrInterleaved(k, Access.LOCAL_WRITE, 2,
                new MkeyEx.Interleaved(a, 0x10000, 0, lk)))).as("bytes_count of 17 bits").isEqualTo(Errno.EINVAL);
            assertThat(errnoOfBatch(m, inline, x -> x.mrInterleaved(k, Access.LOCAL_WRITE, 2,
                new MkeyEx.Interleaved(a, 0x8000, 0x8000, lk)))).as("stride of 17 bits").isEqualTo(Errno.EINVAL);
            assertThat(errnoOfBatch(m, inline, x -> {
                x.mkeyConfigure(k, 2);
                x.setMkeyLayoutList(list(m.f.bufA, lk));
                x.setMkeyLayoutInterleaved(1, interleaved(m.f.bufA, lk));
            })).as("two layouts").isEqualTo(Errno.EINVAL);
            assertThat(errnoOfBatch(m, inline, x -> {
                x.mkeyConfigure(k, 2);
                x.setMkeyAccessFlags(Access.LOCAL_WRITE);
                x.setMkeyAccessFlags(Access.LOCAL_WRITE);
            })).as("a setter twice").isEqualTo(Errno.EINVAL);
            assertThat(errnoOfBatch(m, inline, x -> {
                x.mkeyConfigure(k, 2);
                x.setMkeyAccessFlags(Access.LOCAL_WRITE);
            })).as("fewer setters than announced").isEqualTo(Errno.EINVAL);
            assertThat(errnoOfBatch(m, inline, x -> x.mrList(k, Access.MW_BIND, list(m.f.bufA, lk))))
                .as("access bits beyond LW/RW/RR/RA").isEqualTo(Errno.EINVAL);
            assertThat(m.f.quiet(m.f.cqa, 200)).as("none of the batches was posted").isTrue();
            assertThat(m.f.bufB.asSlice(3 * MSG, 8).toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 7);
            assertThat(k.isConfigured()).isFalse();
            // and the QP without MKEY_CONFIGURE ops refuses the builder
            QpInitAttr plain = new QpInitAttr(QpType.RC, m.f.cqa, m.f.cqa, new QpCap(4, 4, 1, 1, 512));
            plain.sendOpsFlags = SendOps.SEND;
            QueuePair q = m.f.pda.createQp(plain);
            QpEx x = q.ex();
            x.start();
            x.wrFlags = inline;
            MkeyEx.from(x).mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, lk));
            assertThatThrownBy(x::complete).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
            q.close();
        }
    }

    @Test
    void shouldRefuseCreateFlagsItDoesNotOfferWithEopnotsupp() {
        try (RcFixture f = new RcFixture(4096)) {
            for (int flags : new int[]{0, IndirectMemoryKey.BLOCK_SIGNATURE, IndirectMemoryKey.INDIRECT
                | IndirectMemoryKey.CRYPTO, IndirectMemoryKey.INDIRECT | 1 << 7}) {
                assertThatThrownBy(() -> f.pda.createIndirectKey(flags, 4)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
            }
            assertThat(f.pda.createIndirectKey(IndirectMemoryKey.INDIRECT, 5).maxEntries()).isEqualTo(8);
        }
    }

    // ---------------------------------------------------------------- use

    @Test
    void shouldFailReconfiguringAKeyInUseAndWorkAfterLocalInvalidation() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey k = m.f.pda.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey())));
            assertThatThrownBy(m.f.mra::close).as("its region is in use").isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            assertThat(configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey())))
                .status).isEqualTo(WcStatus.MW_BIND_ERR);
        }
        try (Mk m = new Mk()) {
            IndirectMemoryKey k = m.f.pda.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            configure(m.f, m.xa, m.f.cqa, x -> x.mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey())));
            localInv(m, m.qa, m.f.cqa, k);
            assertThat(configure(m.f, m.xa, m.f.cqa, x -> x.mrInterleaved(k, Access.LOCAL_WRITE, 2,
                interleaved(m.f.bufA, m.f.mra.lkey()))).status).isEqualTo(WcStatus.SUCCESS);
            assertThat(k.length()).isEqualTo(32);
        }
    }

    @Test
    void shouldNotConfigureAKeyBehindARequestThatFails() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey k = m.f.pda.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            m.xa.start();
            m.xa.wrFlags = SendFlags.SIGNALED;
            m.xa.rdmaWrite(0x7777_7700, m.f.bufB.address()); // no such rkey: REM_ACCESS_ERR
            m.xa.setSge(m.f.mra.lkey(), m.f.bufA.address(), 8);
            m.xa.wrFlags = SendFlags.SIGNALED | SendFlags.INLINE;
            MkeyEx.from(m.xa).mrList(k, Access.LOCAL_WRITE, list(m.f.bufA, m.f.mra.lkey()));
            m.xa.complete();
            assertThat(status(m.f, m.f.cqa)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(status(m.f, m.f.cqa)).isEqualTo(WcStatus.WR_FLUSH_ERR);
            // fenced: the UMR waited for the WRITE, so its flush is the truth: the key is free and
            // its region not held
            assertThat(k.isConfigured()).isFalse();
            m.f.mra.region().heldByKeys();
            assertThat(m.f.mra.region().heldByKeys()).isZero();
        }
    }

    @Test
    void shouldUseAKeyInTheWorkRequestRightAfterItsConfigureWithoutWaiting() {
        try (Mk m = new Mk()) {
            IndirectMemoryKey kb = m.f.pdb.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            m.f.bufB.fill((byte) 0);
            RcFixture.fill(m.f.bufA, 0, 16, 3);
            // B configures and at once posts a receive scattered through the key; A sends
            m.xb.start();
            m.xb.wrFlags = SendFlags.INLINE;
            MkeyEx.from(m.xb).mrList(kb, Access.LOCAL_WRITE, list(m.f.bufB, m.f.mrb.lkey()));
            m.xb.complete();
            m.qb.postRecv(new RecvWr(1).sge(0, 16, kb.lkey()));
            SendWr s = new SendWr(1).sge(m.f.bufA.address(), 16, m.f.mra.lkey());
            s.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(s);
            m.f.pollOk(m.f.cqa);
            m.f.pollOk(m.f.cqb);
            RcFixture.assertFilled(m.f.bufB, 0, 8, 3);
            assertThat(m.f.bufB.asSlice(64, 8).toArray(ValueLayout.JAVA_BYTE))
                .isEqualTo(m.f.bufA.asSlice(8, 8).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void shouldWriteRemotelyThroughAnInterleavedKeyAcrossImplicitOdpChildrenAndReadBackLocally() {
        long mib2 = 2L << 20;
        MemorySegment mem = NativeMemory.map(4 * mib2);
        try (Mk m = new Mk()) {
            MemoryRegion implicit = m.f.pdb.registerMemory(0, -1L, Access.LOCAL_WRITE | Access.ON_DEMAND);
            IndirectMemoryKey k = m.f.pdb.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            // three entries, each in its own 2 MiB child (at 2 MiB-aligned base + 0, 2 and 4 MiB;
            // each spans 49 * 4096 + 1000 bytes), 1000 bytes every 4096, 50 times
            long base = (mem.address() + mib2 - 1) & -mib2;
            MkeyEx.Interleaved[] entries = {new MkeyEx.Interleaved(base + 100, 1000, 3096, implicit.lkey()),
                new MkeyEx.Interleaved(base + mib2 + 7, 1000, 3096, implicit.lkey()),
                new MkeyEx.Interleaved(base + 2 * mib2 + 13, 1000, 3096, implicit.lkey())};
            configure(m.f, m.xb, m.f.cqb, x -> x.mrInterleaved(k, ALL, 50, entries));
            long total = 3 * 1000 * 50;
            assertThat(k.length()).isEqualTo(total);
            MemorySegment src = m.f.arena.allocate(total, 4096);
            RcFixture.fill(src, 0, total, 9);
            MemoryRegion srcMr = m.f.pda.registerMemory(src, Access.LOCAL_WRITE);
            SendWr w = new SendWr(1).sge(src.address(), (int) total, srcMr.lkey()).rdma(0, k.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(w);
            m.f.pollOk(m.f.cqa);
            // read back locally, entry by entry, repeat by repeat
            long off = 0;
            for (int r = 0; r < 50; r++) {
                for (MkeyEx.Interleaved e : entries) {
                    MemorySegment piece = MemorySegment.ofAddress(e.addr() + r * 4096L).reinterpret(1000);
                    assertThat(piece.toArray(ValueLayout.JAVA_BYTE)).as("repeat %d at 0x%x", r, e.addr())
                        .isEqualTo(src.asSlice(off, 1000).toArray(ValueLayout.JAVA_BYTE));
                    off += 1000;
                }
            }
            // and READ it back through the rkey, whole
            MemorySegment back = m.f.arena.allocate(total, 4096);
            MemoryRegion backMr = m.f.pda.registerMemory(back, Access.LOCAL_WRITE);
            SendWr rd = new SendWr(1).sge(back.address(), (int) total, backMr.lkey()).rdma(0, k.rkey());
            rd.opcode = WrOpcode.RDMA_READ;
            rd.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(rd);
            m.f.pollOk(m.f.cqa);
            assertThat(back.mismatch(src)).isEqualTo(-1);
            localInv(m, m.qb, m.f.cqb, k);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldMixPinnedAndOdpEntriesInAListAndRefuseAccessBeyondIt() {
        try (Mk m = new Mk()) {
            MemoryRegion odp = m.f.pdb.registerMemory(m.f.bufB.asSlice(2 * MSG, MSG), ALL | Access.ON_DEMAND);
            IndirectMemoryKey k = m.f.pdb.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
            Sge[] layout = {new Sge(m.f.bufB.address() + 100, 300, m.f.mrb.lkey()),
                new Sge(m.f.bufB.address() + 2 * MSG + 10, 500, odp.lkey()),
                new Sge(m.f.bufB.address() + 3 * MSG, 224, m.f.mrb.lkey())};
            configure(m.f, m.xb, m.f.cqb, x -> x.mrList(k, ALL, layout));
            assertThat(k.length()).isEqualTo(1024);
            m.f.bufB.fill((byte) 0x5c);
            RcFixture.fill(m.f.bufA, 0, 1024, 4);
            SendWr w = new SendWr(1).sge(m.f.bufA.address(), 1024, m.f.mra.lkey()).rdma(0, k.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(w);
            m.f.pollOk(m.f.cqa);
            MemorySegment flat = m.f.arena.allocate(1024);
            MemorySegment.copy(m.f.bufB, 100, flat, 0, 300);
            MemorySegment.copy(m.f.bufB, 2 * MSG + 10, flat, 300, 500);
            MemorySegment.copy(m.f.bufB, 3 * MSG, flat, 800, 224);
            RcFixture.assertFilled(flat, 0, 1024, 4);
            assertThat(m.f.bufB.get(ValueLayout.JAVA_BYTE, 99)).isEqualTo((byte) 0x5c);
            assertThat(m.f.bufB.get(ValueLayout.JAVA_BYTE, 400)).isEqualTo((byte) 0x5c);
            // one byte past the layout: refused, and nothing outside the layout written
            SendWr beyond = new SendWr(1).sge(m.f.bufA.address(), 2, m.f.mra.lkey()).rdma(1023, k.rkey());
            beyond.opcode = WrOpcode.RDMA_WRITE;
            beyond.sendFlags = SendFlags.SIGNALED;
            m.qa.postSend(beyond);
            assertThat(status(m.f, m.f.cqa)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(m.f.bufB.get(ValueLayout.JAVA_BYTE, 3 * MSG + 224)).isEqualTo((byte) 0x5c);
        }
    }
}
