package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The largest message, 2 GiB, as one RDMA READ from an explicit ODP region: at MTU 4096 (2^19
 * responses) and at MTU 256, where its responses span 2^23 PSNs, half the PSN space, the most a
 * requester may have outstanding. Every response is read through the key check, the responder
 * sends them a budget per duty cycle, and the requester counts its window in extended PSNs.
 */
class RcHugeReadTest {
    private static final long SIZE = 1L << 31;
    /** Bytes between the markers written into the source (the rest stays untouched zero pages). */
    private static final long STRIDE = 1 << 20;

    @ParameterizedTest
    @ValueSource(ints = {Mtu.MTU_4096, Mtu.MTU_256})
    void shouldReadTwoGibibytesInOneRequest(int mtu) {
        MemorySegment src = NativeMemory.map(SIZE);
        MemorySegment dst = NativeMemory.map(SIZE);
        try (RcFixture f = new RcFixture(4096)) {
            for (long off = 0; off < SIZE; off += STRIDE) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 8, 0x5EED0000_00000000L | off);
            }
            MemoryRegion remote = f.pdb.registerMemory(src, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.ON_DEMAND);
            MemoryRegion local = f.pda.registerMemory(dst, Access.LOCAL_WRITE | Access.ON_DEMAND);
            f.connect(new QpCap(16, 16, 1, 1, 0), new RcConnect().pathMtu(mtu).timeout(18));
            SendWr read = new SendWr(1).sge(dst.address(), (int) SIZE, local.lkey()).rdma(src.address(), remote.rkey());
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            read.wrId = 77;
            f.qa.postSend(read);
            WorkCompletion wc = pollLong(f, 600_000);
            assertThat(WcStatus.str(wc.status)).isEqualTo(WcStatus.str(WcStatus.SUCCESS));
            assertThat(wc.wrId).isEqualTo(77);
            assertThat(Integer.toUnsignedLong(wc.byteLen)).isEqualTo(SIZE);
            for (long off = 0; off < SIZE; off += STRIDE) {
                assertThat(dst.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 8)).isEqualTo(0x5EED0000_00000000L | off);
                assertThat(dst.get(ValueLayout.JAVA_LONG_UNALIGNED, off + STRIDE - 8)).isZero();
            }
            assertThat(f.qa.state()).isEqualTo(dev.jrxe.ib.QpState.RTS);
        } finally {
            NativeMemory.unmap(src);
            NativeMemory.unmap(dst);
        }
    }

    private static WorkCompletion pollLong(RcFixture f, long millis) {
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (f.cqa.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + millis + " ms: " + f.qa.transportState());
            }
        }
        return one[0];
    }
}
