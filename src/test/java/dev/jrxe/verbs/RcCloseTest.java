package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import org.junit.jupiter.api.Test;

/**
 * A receiver that destroys its QP (or closes its device) the moment its last receive completes:
 * the ACK it still owed for coalescing leaves first, so the sender sees its SENDs succeed rather
 * than retrying into a QP that is gone until RETRY_EXC_ERR.
 */
class RcCloseTest {
    private static final int BURST = 64;

    @Test
    void shouldAcknowledgeWhatItReceivedBeforeItsQpIsDestroyed() {
        for (int round = 0; round < 20; round++) {
            burstThenClose(round % 2 == 0);
        }
    }

    private static void burstThenClose(boolean closeDevice) {
        RcFixture f = new RcFixture(1 << 20);
        try {
            f.connect(new QpCap(BURST, BURST, 1, 1, 0), new RcConnect().timeout(14).retries(7, 7));
            RecvWr r = new RecvWr(1);
            for (int i = 0; i < BURST; i++) {
                r.wrId = i;
                r.sge(f.bufB.address() + i * 1024L, 1024, f.mrb.lkey());
                f.qb.postRecv(r);
            }
            SendWr s = new SendWr(1);
            s.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < BURST; i++) {
                s.wrId = i;
                s.sge(f.bufA.address() + i * 1024L, 1024, f.mra.lkey());
                f.qa.postSend(s);
            }
            for (int i = 0; i < BURST; i++) {
                f.pollOk(f.cqb);
            }
            if (closeDevice) {
                f.b.close();
            } else {
                f.qb.close();
            }
            for (int i = 0; i < BURST; i++) {
                WorkCompletion w = f.poll(f.cqa);
                assertThat(WcStatus.str(w.status)).as("send %d (%s closed)", w.wrId, closeDevice ? "device" : "QP")
                    .isEqualTo(WcStatus.str(WcStatus.SUCCESS));
            }
        } finally {
            f.close();
        }
    }
}
