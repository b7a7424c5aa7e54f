package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The largest message, 2^31 bytes, bounds a SEND as it bounds READ and WRITE. */
class RcResponderLimitsTest {
    private static final int PD = 3;
    private static final int MTU = 1024;

    @Test
    void shouldRejectASendThatGrowsPastTheLargestMessage() {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, Access.LOCAL_WRITE);
            Qp qp = h.connect(PD, Access.LOCAL_WRITE, 4, 0x10, 0, MTU);
            RecvWqe w = qp.rq.claim();
            w.wrId = 5;
            w.numSge = 4;
            for (int i = 0; i < 4; i++) {
                w.sgeAddr[i] = mem.address();
                w.sgeLength[i] = -1; // 4 GiB - 1 each: the buffer is no limit
                w.sgeLkey[i] = r.lkey();
            }
            w.length = 4 * 0xFFFFFFFFL;
            qp.rq.publish();
            h.begin(Opcodes.RC_SEND_FIRST, qp, 0x10);
            h.inject(MTU);
            h.run();
            // as if 2^21 - 1 more MIDDLEs had come (no need to send them): one more passes 2^31
            h.engine.withEngine(() -> qp.resp.recvOffset = (1L << 31) - 512);
            h.begin(Opcodes.RC_SEND_MIDDLE, qp, 0x11);
            h.inject(MTU);
            h.run();
            List<EngineHarness.Sent> sent = h.sent();
            assertThat(sent).isNotEmpty();
            assertThat(sent.get(sent.size() - 1).syndrome()).isEqualTo(Aeth.NAK_INVALID_REQ);
            assertThat(qp.state()).isEqualTo(QpState.ERR);
            Cqe c = h.cq.peek();
            assertThat(c.wrId).isEqualTo(5);
            assertThat(c.status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        } finally {
            NativeMemory.unmap(mem);
        }
    }
}
