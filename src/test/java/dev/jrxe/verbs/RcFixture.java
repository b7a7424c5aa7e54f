package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two devices on 127.0.0.2 and 127.0.0.3 (a test port each run), one RC QP each, connected, with a
 * registered buffer on each side. Tests drive it and check every byte.
 */
final class RcFixture implements AutoCloseable {
    private static final AtomicInteger PORTS = new AtomicInteger(20000 + (int) (ProcessHandle.current().pid() % 500) * 20);
    static final int ALL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    final Arena arena = Arena.ofShared();
    final Device a;
    final Device b;
    final ProtectionDomain pda;
    final ProtectionDomain pdb;
    final MemorySegment bufA;
    final MemorySegment bufB;
    final MemoryRegion mra;
    final MemoryRegion mrb;
    final CompletionQueue cqa;
    final CompletionQueue cqb;
    QueuePair qa;
    QueuePair qb;
    final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};

    static int nextPort() {
        return PORTS.getAndIncrement();
    }

    RcFixture(long bufSize) {
        this(DeviceConfig.of("jrxe-a", "127.0.0.2"), DeviceConfig.of("jrxe-b", "127.0.0.3"), bufSize);
    }

    RcFixture(DeviceConfig ca, DeviceConfig cb, long bufSize) {
        int port = nextPort();
        a = Device.open(ca.udpPort(port));
        b = Device.open(cb.udpPort(port));
        pda = a.allocPd();
        pdb = b.allocPd();
        bufA = arena.allocate(bufSize, 4096);
        bufB = arena.allocate(bufSize, 4096);
        mra = pda.registerMemory(bufA, ALL_ACCESS);
        mrb = pdb.registerMemory(bufB, ALL_ACCESS);
        cqa = a.createCq(4096);
        cqb = b.createCq(4096);
    }

    RcFixture connect(QpCap cap, RcConnect how) {
        qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, cap));
        qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, cap));
        how.pair(qa, 0xFFFFF0, qb, 0x123456);
        return this;
    }

    RcFixture connect() {
        return connect(new QpCap(256, 256, 4, 4, 64), new RcConnect());
    }

    /** Polls until one completion arrives (10 s limit, as a hang guard only). */
    WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 10 s");
            }
        }
        return one[0];
    }

    WorkCompletion pollOk(CompletionQueue cq) {
        WorkCompletion w = poll(cq);
        assertThat(w.status).as("status %s", WcStatus.str(w.status)).isEqualTo(WcStatus.SUCCESS);
        return w;
    }

    /** True when nothing arrives within {@code millis}. */
    boolean quiet(CompletionQueue cq, long millis) {
        WorkCompletion[] one = {new WorkCompletion()};
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (cq.poll(one) > 0) {
                return false;
            }
        }
        return true;
    }

    static void fill(MemorySegment s, long off, long n, int seed) {
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed * 131 + i * 7 + (i >>> 8)));
        }
    }

    static void assertFilled(MemorySegment s, long off, long n, int seed) {
        for (long i = 0; i < n; i++) {
            byte want = (byte) (seed * 131 + i * 7 + (i >>> 8));
            byte got = s.get(ValueLayout.JAVA_BYTE, off + i);
            if (got != want) {
                throw new AssertionError("byte " + i + " of " + n + ": got " + got + ", want " + want);
            }
        }
    }

    @Override
    public void close() {
        if (qa != null) {
            qa.close();
        }
        if (qb != null) {
            qb.close();
        }
        a.close();
        b.close();
        arena.close();
    }
}
