package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcFixture.assertFilled;
import static dev.jrxe.verbs.RcFixture.fill;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.net.DropReason;
import dev.jrxe.transport.TransportCounters;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Reliability under loss: 5% drop, 2% duplicate, 2% reorder on both links, both directions.
 * 20,000 mixed SEND / WRITE / READ / atomic operations must all succeed, every SEND arrive once and
 * in order, every byte match, and no QP end in error.
 */
class RcLossTest {
    private static final int OPS = 20_000;
    private static final int SLOT = 3000;
    private static final int SLOTS = 64;

    @Test
    void shouldCompleteMixedTrafficUnderLossDuplicationAndReordering() {
        DeviceConfig ca = DeviceConfig.of("lossy-a", "127.0.0.2").faults(0.05, 0.02, 0.02, 42);
        DeviceConfig cb = DeviceConfig.of("lossy-b", "127.0.0.3").faults(0.05, 0.02, 0.02, 43);
        try (RcFixture f = new RcFixture(ca, cb, 4L * SLOTS * SLOT + 4096)) {
            // timeout 10 = 4.1 ms: lost tails recover fast, yet 8 retries (retry_cnt 7 counts, see
            // RELIABILITY.md) outlast a 33 ms stall of a loaded machine (timeout 8, 8 ms in all, did not)
            f.connect(new QpCap(SLOTS, SLOTS, 1, 1, 0), new RcConnect().timeout(10).retries(7, 7).minRnrTimer(1));
            SplittableRandom rnd = new SplittableRandom(7);
            long recvBase = 0;                       // b's receive slots
            long writeBase = (long) SLOTS * SLOT;    // b's WRITE/READ/atomic target
            long srcBase = 0;                        // a's source slots
            long readBase = 2L * SLOTS * SLOT;       // a's READ destination
            SendWr s = new SendWr(1);
            RecvWr r = new RecvWr(1);
            int sendsPosted = 0;
            int recvsDone = 0;
            long atomicExpect = 0;
            f.bufB.set(ValueLayout.JAVA_LONG, writeBase, 0);
            for (int i = 0; i < SLOTS; i++) {
                r.wrId = i;
                r.sge(f.bufB.address() + recvBase + (long) i * SLOT, SLOT, f.mrb.lkey());
                f.qb.postRecv(r);
            }
            int inFlight = 0;
            int done = 0;
            int posted = 0;
            int[] kindOf = new int[OPS];
            int[] lenOf = new int[OPS];
            WorkCompletion[] wcs = f.wc;
            long lastProgress = System.nanoTime();
            int lastDone = -1;
            while (done < OPS) {
                if (done != lastDone) {
                    lastDone = done;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > 10_000_000_000L) {
                    throw new AssertionError("stuck at op " + done + " of " + OPS + " (kind " + kindOf[done] + ")\n a: "
                        + f.qa.transportState() + "\n b: " + f.qb.transportState());
                }
                while (posted < OPS && inFlight < SLOTS - 1) {
                    int slot = posted % SLOTS;
                    int kind = rnd.nextInt(4);
                    int len = 1 + rnd.nextInt(SLOT);
                    kindOf[posted] = kind;
                    lenOf[posted] = len;
                    s.wrId = posted;
                    s.sendFlags = SendFlags.SIGNALED;
                    switch (kind) {
                        case 0 -> { // SEND with a sequence number in the first 4 bytes
                            fill(f.bufA, srcBase + (long) slot * SLOT, len, posted);
                            len = Math.max(len, 4);
                            lenOf[posted] = len;
                            f.bufA.set(ValueLayout.JAVA_INT_UNALIGNED, srcBase + (long) slot * SLOT, sendsPosted++);
                            s.opcode = WrOpcode.SEND;
                            s.sge(f.bufA.address() + srcBase + (long) slot * SLOT, len, f.mra.lkey());
                        }
                        case 1 -> {
                            fill(f.bufA, srcBase + (long) slot * SLOT, len, posted);
                            s.opcode = WrOpcode.RDMA_WRITE;
                            s.sge(f.bufA.address() + srcBase + (long) slot * SLOT, len, f.mra.lkey())
                                .rdma(f.bufB.address() + writeBase + 8 + (long) slot * SLOT, f.mrb.rkey());
                        }
                        case 2 -> {
                            s.opcode = WrOpcode.RDMA_READ;
                            s.sge(f.bufA.address() + readBase + (long) slot * SLOT, len, f.mra.lkey())
                                .rdma(f.bufB.address() + writeBase + 8 + (long) slot * SLOT, f.mrb.rkey());
                        }
                        default -> {
                            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
                            s.compareAdd = 1;
                            s.sge(f.bufA.address() + readBase + (long) slot * SLOT, 8, f.mra.lkey())
                                .rdma(f.bufB.address() + writeBase, f.mrb.rkey());
                        }
                    }
                    f.qa.postSend(s);
                    posted++;
                    inFlight++;
                }
                int n = f.cqa.poll(wcs);
                for (int k = 0; k < n; k++) {
                    WorkCompletion w = wcs[k];
                    assertThat(w.status).as("op %d: %s", w.wrId, WcStatus.str(w.status)).isEqualTo(WcStatus.SUCCESS);
                    int op = (int) w.wrId;
                    assertThat(op).as("completions in order").isEqualTo(done);
                    int slot = op % SLOTS;
                    switch (kindOf[op]) {
                        case 1 -> assertFilled(f.bufB, writeBase + 8 + (long) slot * SLOT, lenOf[op], op);
                        case 2 -> {
                            byte[] want = new byte[lenOf[op]];
                            java.lang.foreign.MemorySegment.copy(f.bufB, ValueLayout.JAVA_BYTE,
                                writeBase + 8 + (long) slot * SLOT, want, 0, want.length);
                            byte[] got = new byte[lenOf[op]];
                            java.lang.foreign.MemorySegment.copy(f.bufA, ValueLayout.JAVA_BYTE,
                                readBase + (long) slot * SLOT, got, 0, got.length);
                            assertThat(got).isEqualTo(want);
                        }
                        case 3 -> {
                            assertThat(f.bufA.get(ValueLayout.JAVA_LONG, readBase + (long) slot * SLOT))
                                .as("fetch-add original").isEqualTo(atomicExpect);
                            atomicExpect++;
                        }
                        default -> {
                        }
                    }
                    done++;
                    inFlight--;
                }
                int m = f.cqb.poll(wcs);
                for (int k = 0; k < m; k++) {
                    WorkCompletion w = wcs[k];
                    if (w.status != WcStatus.SUCCESS) {
                        throw new AssertionError("receive " + w + " after " + recvsDone + " SENDs; b's events: "
                            + drainEvents(f.b) + "\n a: " + f.qa.transportState() + "\n b: " + f.qb.transportState());
                    }
                    assertThat(w.opcode).isEqualTo(WcOpcode.RECV);
                    long at = recvBase + w.wrId * SLOT;
                    assertThat(f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, at)).as("SEND sequence")
                        .isEqualTo(recvsDone);
                    recvsDone++;
                    r.wrId = w.wrId;
                    r.sge(f.bufB.address() + at, SLOT, f.mrb.lkey());
                    f.qb.postRecv(r);
                }
            }
            while (recvsDone < sendsPosted) {
                WorkCompletion w = f.pollOk(f.cqb);
                assertThat(f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, recvBase + w.wrId * SLOT)).isEqualTo(recvsDone);
                recvsDone++;
            }
            assertThat(f.quiet(f.cqb, 50)).as("no SEND arrives twice").isTrue();
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, writeBase)).as("each atomic executed once")
                .isEqualTo(atomicExpect);
            assertThat(f.qa.state()).isEqualTo(QpState.RTS);
            assertThat(f.qb.state()).isEqualTo(QpState.RTS);
            assertThat(f.a.link().counters().drops(DropReason.INJECTED)).isPositive();
            assertThat(f.b.transportCounters().get(TransportCounters.DUPLICATE_REQUEST)).isPositive();
            System.out.printf("loss test: %d ops, a: retries %d seq-naks %d; b: duplicates %d out-of-seq %d%n", OPS,
                f.a.transportCounters().get(TransportCounters.COMPLETER_RETRY_ERR),
                f.a.transportCounters().get(TransportCounters.RCVD_SEQ_ERR),
                f.b.transportCounters().get(TransportCounters.DUPLICATE_REQUEST),
                f.b.transportCounters().get(TransportCounters.OUT_OF_SEQ_REQUEST));
        }
    }

    private static String drainEvents(Device d) {
        StringBuilder sb = new StringBuilder();
        AsyncEvent e;
        while ((e = d.pollAsyncEvent()) != null) {
            sb.append(e).append("; ");
        }
        return sb.toString();
    }

    /**
     * A long stream under loss takes many more ACK timeouts than retry_cnt allows in a row, but
     * each is followed by progress, which restores the budget: the QP must never give up. (The
     * completer once restored it only when the ACK moved the oldest PSN further than its own
     * completions had, which never happens for SENDs: a run like this one ended in RETRY_EXC_ERR
     * after seven timeouts in all.)
     */
    @Test
    void shouldRestoreItsRetryBudgetWheneverItMakesProgress() {
        DeviceConfig ca = DeviceConfig.of("stream-a", "127.0.0.2").faults(0.05, 0.01, 0.01, 11);
        DeviceConfig cb = DeviceConfig.of("stream-b", "127.0.0.3").faults(0.05, 0.01, 0.01, 12);
        try (RcFixture f = new RcFixture(ca, cb, 1 << 20)) {
            f.connect(new QpCap(64, 512, 1, 1, 0), new RcConnect().timeout(10).retries(7, 7));
            RecvWr r = new RecvWr(1);
            for (int i = 0; i < 16; i++) {
                r.wrId = i;
                r.sge(f.bufB.address() + i * 1024L, 1024, f.mrb.lkey());
                f.qb.postRecv(r);
            }
            SendWr s = new SendWr(1);
            s.sendFlags = SendFlags.SIGNALED;
            WorkCompletion[] wc = f.wc;
            long n = 20_000;
            long sent = 0;
            long done = 0;
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (done < n) {
                while (sent < n && sent - done < 64) {
                    s.wrId = sent;
                    s.sge(f.bufA.address() + (sent % 64) * 1024, 1024, f.mra.lkey());
                    f.qa.postSend(s);
                    sent++;
                }
                int k = f.cqa.poll(wc);
                for (int i = 0; i < k; i++) {
                    assertThat(WcStatus.str(wc[i].status)).as("send %d of %d", wc[i].wrId, n)
                        .isEqualTo(WcStatus.str(WcStatus.SUCCESS));
                    assertThat(wc[i].wrId).isEqualTo(done);
                    done++;
                }
                // a receiver that gives its buffers back in bursts: RNR NAKs too
                int m = f.cqb.poll(wc);
                for (int i = 0; i < m; i++) {
                    r.wrId = wc[i].wrId;
                    r.sge(f.bufB.address() + wc[i].wrId * 1024L, 1024, f.mrb.lkey());
                    f.qb.postRecv(r);
                }
                assertThat(System.nanoTime()).as("stuck at %d of %d: %s", done, n, f.qa.transportState())
                    .isLessThan(deadline);
            }
            assertThat(f.a.counters().get("completer_retry_err")).as("retries in all, more than one budget")
                .isGreaterThan(7);
            assertThat(f.qa.state()).isEqualTo(QpState.RTS);
        }
    }
}
