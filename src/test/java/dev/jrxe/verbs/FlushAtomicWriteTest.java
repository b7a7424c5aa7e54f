package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Flush;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * IBTA 1.5's FLUSH and ATOMIC_WRITE over real UDP, through the classic post API: on pinned,
 * explicit-ODP and implicit-ODP regions; FLUSH PERSISTENT into a file-backed region, read back
 * from the file by another process; and the refusals with rxe's completion statuses.
 */
class FlushAtomicWriteTest {
    private static final int QP_ACCESS = RcFixture.ALL_ACCESS | Access.FLUSH_GLOBAL | Access.FLUSH_PERSISTENT;

    enum Kind { PINNED, ODP, IMPLICIT }

    private static RcFixture connected() {
        return new RcFixture(64 * 1024).connect(new QpCap(64, 64, 4, 4, 64), new RcConnect().accessFlags(QP_ACCESS));
    }

    private static SendWr write(RcFixture f, long remote, int rkey, long localOff, int len) {
        SendWr w = new SendWr(1);
        w.opcode = WrOpcode.RDMA_WRITE;
        w.sge(f.bufA.address() + localOff, len, f.mra.lkey()).rdma(remote, rkey);
        return w;
    }

    private static SendWr flush(long remote, int rkey, long len, int type, int level) {
        SendWr w = new SendWr(1);
        w.opcode = WrOpcode.FLUSH;
        w.sendFlags = SendFlags.SIGNALED;
        w.remoteAddr = remote;
        w.rkey = rkey;
        w.flushLength = len;
        w.flushType = type;
        w.flushLevel = level;
        w.numSge = 0;
        return w;
    }

    private static SendWr atomicWrite(long remote, int rkey, long value) {
        SendWr w = new SendWr(1);
        w.opcode = WrOpcode.ATOMIC_WRITE;
        w.sendFlags = SendFlags.SIGNALED;
        w.remoteAddr = remote;
        w.rkey = rkey;
        w.atomicWriteValue = value;
        w.numSge = 0;
        return w;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldFlushAndAtomicWriteOnEveryKindOfRegion(Kind kind) {
        try (RcFixture f = connected()) {
            int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.FLUSH_GLOBAL;
            MemorySegment mem = NativeMemory.map(1 << 20);
            MemoryRegion mr = switch (kind) {
                case PINNED -> f.pdb.registerMemory(mem, access);
                case ODP -> f.pdb.registerMemory(mem, access | Access.ON_DEMAND);
                case IMPLICIT -> f.pdb.registerMemory(0, -1L, access | Access.ON_DEMAND);
            };
            try {
                long base = mem.address();
                for (int i = 0; i < 8; i++) {
                    RcFixture.fill(f.bufA, 0, 4096, i);
                    SendWr w = write(f, base + 8192, mr.rkey(), 0, 4096);
                    w.next = atomicWrite(base + 64 * 1024 + 8L * i, mr.rkey(), 0x0102030405060708L * (i + 1));
                    w.next.next = flush(base + 8192, mr.rkey(), 4096, Flush.GLOBAL, i % 2 == 0 ? Flush.RANGE : Flush.MR);
                    f.qa.postSend(w);
                    WorkCompletion aw = f.pollOk(f.cqa);
                    assertThat(aw.opcode).isEqualTo(WcOpcode.ATOMIC_WRITE);
                    assertThat(aw.byteLen).isEqualTo(8);
                    WorkCompletion fl = f.pollOk(f.cqa);
                    assertThat(fl.opcode).isEqualTo(WcOpcode.FLUSH);
                    RcFixture.assertFilled(mem, 8192, 4096, i);
                    assertThat(mem.get(ValueLayout.JAVA_LONG, 64 * 1024 + 8L * i)).isEqualTo(0x0102030405060708L * (i + 1));
                }
            } finally {
                mr.close();
                NativeMemory.unmap(mem);
            }
        }
    }

    @Test
    void shouldMakeAPersistentFlushReachTheFileWhereAnotherProcessReadsIt() throws Exception {
        Path file = Files.createTempFile("jrxe-flush", ".bin");
        try (RcFixture f = connected();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
             Arena arena = Arena.ofShared()) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, 64 * 1024, arena);
            MemoryRegion mr = f.pdb.registerMemory(mapped,
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.FLUSH_PERSISTENT | Access.FLUSH_GLOBAL);
            for (int level : new int[]{Flush.RANGE, Flush.MR}) {
                RcFixture.fill(f.bufA, 0, 8192, level + 40);
                SendWr w = write(f, mapped.address() + 4096, mr.rkey(), 0, 8192);
                w.next = flush(mapped.address() + 4096, mr.rkey(), 8192, Flush.PERSISTENT, level);
                f.qa.postSend(w);
                assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.FLUSH);
                byte[] onDisk = readWithAnotherProcess(file, 4096, 8192);
                RcFixture.assertFilled(MemorySegment.ofArray(onDisk), 0, 8192, level + 40);
            }
            mr.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** {@code dd} reads the file: the bytes are in the file, not only in this process's memory. */
    private static byte[] readWithAnotherProcess(Path file, int offset, int length) throws Exception {
        Process p = new ProcessBuilder("dd", "if=" + file, "bs=4096", "skip=" + offset / 4096,
            "count=" + length / 4096, "status=none").start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor()).isZero();
        return out.toByteArray();
    }

    @Test
    void shouldFlushAGibibyteOdpRegionWithoutFaultingItIn() {
        try (RcFixture f = connected()) {
            long gib = 1L << 30;
            MemorySegment mem = NativeMemory.map(gib);
            MemoryRegion mr = f.pdb.registerMemory(mem, Access.LOCAL_WRITE | Access.FLUSH_GLOBAL | Access.ON_DEMAND);
            try {
                f.qa.postSend(flush(mem.address(), mr.rkey(), 0, Flush.GLOBAL, Flush.MR));
                f.pollOk(f.cqa);
                f.qa.postSend(flush(mem.address(), mr.rkey(), gib, Flush.GLOBAL, Flush.RANGE));
                f.pollOk(f.cqa);
                // a peer's FLUSH is a fence: nothing of the gibibyte was populated for it
                assertThat(dev.jrxe.sys.Mem.residentPages(mem.address(), gib)).isLessThan(16);
            } finally {
                mr.close();
                NativeMemory.unmap(mem);
            }
        }
    }

    @Test
    void shouldFailAFlushThePeerQpDoesNotAllowWithInvalidRequest() {
        try (RcFixture f = new RcFixture(8192).connect(new QpCap(8, 8, 1, 1, 0), new RcConnect())) {
            MemoryRegion mr = f.pdb.registerMemory(f.bufB, Access.LOCAL_WRITE | Access.FLUSH_GLOBAL);
            f.qa.postSend(flush(f.bufB.address(), mr.rkey(), 64, Flush.GLOBAL, Flush.RANGE));
            // rxe check_qp_attr_access: the QP's access flags lack FLUSH_GLOBAL
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void shouldFailAFlushOutsideTheRegionWithRemoteAccessError() {
        try (RcFixture f = connected()) {
            MemoryRegion mr = f.pdb.registerMemory(f.bufB.asSlice(0, 4096), Access.LOCAL_WRITE | Access.FLUSH_GLOBAL);
            f.qa.postSend(flush(f.bufB.address() + 4000, mr.rkey(), 200, Flush.GLOBAL, Flush.RANGE));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFailAMisalignedAtomicWriteWithInvalidRequestAndTouchNothing() {
        try (RcFixture f = connected()) {
            f.bufB.fill((byte) 0x33);
            f.qa.postSend(atomicWrite(f.bufB.address() + 4, f.mrb.rkey(), -1L));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x3333333333333333L);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x3333333333333333L);
        }
    }

    @Test
    void shouldFailAnAtomicWriteToARegionWithoutRemoteWriteWithRemoteAccessError() {
        try (RcFixture f = connected()) {
            MemoryRegion ro = f.pdb.registerMemory(f.bufB.asSlice(0, 4096), Access.LOCAL_WRITE | Access.REMOTE_READ);
            f.qa.postSend(atomicWrite(f.bufB.address(), ro.rkey(), 5));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 0)).isZero();
        }
    }

    @Test
    void shouldKeepAtomicWritesInOrderWithTheWritesAroundThem() {
        try (RcFixture f = connected()) {
            // WRITE 1s, ATOMIC_WRITE 2, WRITE 3s over the same word, a READ in front keeping the
            // replies pending: the word ends as the last request left it
            f.bufA.set(ValueLayout.JAVA_LONG, 0, 0x1111111111111111L);
            f.bufA.set(ValueLayout.JAVA_LONG, 8, 0x3333333333333333L);
            SendWr read = new SendWr(1);
            read.opcode = WrOpcode.RDMA_READ;
            read.sge(f.bufA.address() + 32 * 1024, 16 * 1024, f.mra.lkey()).rdma(f.bufB.address() + 16 * 1024, f.mrb.rkey());
            read.next = write(f, f.bufB.address(), f.mrb.rkey(), 0, 8);
            read.next.next = atomicWrite(f.bufB.address(), f.mrb.rkey(), 0x2222222222222222L);
            read.next.next.next = write(f, f.bufB.address(), f.mrb.rkey(), 8, 8);
            read.next.next.next.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(read);
            f.pollOk(f.cqa);
            f.pollOk(f.cqa);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x3333333333333333L);
        }
    }

    @Test
    void shouldRefuseBadFlushParametersAndSgesAtPostTimeWithEinval() {
        try (RcFixture f = connected()) {
            for (SendWr bad : new SendWr[]{flush(0, 0, 0, 0, Flush.RANGE), flush(0, 0, 0, 4, Flush.RANGE),
                flush(0, 0, 0, Flush.GLOBAL, 2), flush(0, 0, -1, Flush.GLOBAL, Flush.RANGE),
                atomicWrite(0, 0, 0).sge(f.bufA.address(), 8, f.mra.lkey())}) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.qa.postSend(bad))
                    .isInstanceOfSatisfying(PostException.class,
                        e -> assertThat(e.errno()).isEqualTo(dev.jrxe.ib.Errno.EINVAL));
            }
            // both placements at once are one valid request (a bit mask, as rxe reads it)
            MemoryRegion mr = f.pdb.registerMemory(f.bufB.asSlice(0, 4096), Access.LOCAL_WRITE | Access.FLUSH_GLOBAL);
            f.qa.postSend(flush(f.bufB.address(), mr.rkey(), 64, Flush.GLOBAL | Flush.PERSISTENT, Flush.RANGE));
            assertThat(f.poll(f.cqa).status).as("PERSISTENT is not granted").isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }
}
