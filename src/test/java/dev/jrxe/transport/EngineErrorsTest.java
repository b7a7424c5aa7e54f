package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An exception inside the transport (a bug, a broken callback) fails only the QP it concerns,
 * with an async event and a counted reason; the device goes on serving its other QPs, and its
 * progress thread survives anything that goes wrong in one of its rounds.
 */
class EngineErrorsTest {
    private static final int PD = 3;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    /** A key whose writes throw, standing in for a transport bug halfway through a request. */
    private static MemoryKey throwingOnWrite(MemoryKey real) {
        return (MemoryKey) java.lang.reflect.Proxy.newProxyInstance(MemoryKey.class.getClassLoader(),
            new Class<?>[] {MemoryKey.class}, (proxy, method, args) -> {
                if (method.getName().equals("write")) {
                    throw new IllegalStateException("injected failure");
                }
                if (method.getName().equals("forRemote")) {
                    return proxy; // a region resolves to itself: here, to the throwing wrapper
                }
                try {
                    return method.invoke(real, args);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    }

    @Test
    void shouldFailOnlyTheQpWhoseTransportThrew() {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        int[] badKey = new int[1];
        dev.jrxe.memory.KeyTable table = new dev.jrxe.memory.KeyTable();
        try (EngineHarness h = new EngineHarness(key -> key == badKey[0] ? throwingOnWrite(table.lookup(key))
            : table.lookup(key))) {
            Region bad = MemoryRegions.register(table, PD, mem.asSlice(0, 32 * 1024), ALL);
            Region good = MemoryRegions.register(table, PD, mem.asSlice(32 * 1024, 32 * 1024), ALL);
            badKey[0] = bad.key();
            Qp one = h.connect(PD, ALL, 4, 0x10, 0, 1024);
            Qp two = h.connect(PD, ALL, 4, 0x10, 0, 1024);
            PacketWriter w = h.begin(Opcodes.RC_RDMA_WRITE_ONLY, one, 0x10);
            w.bth().ackReq(true);
            w.reth().va(mem.address()).rkey(bad.rkey()).dmaLength(64);
            h.inject(64);
            w = h.begin(Opcodes.RC_RDMA_WRITE_ONLY, two, 0x10);
            w.bth().ackReq(true);
            w.reth().va(mem.address() + 32 * 1024).rkey(good.rkey()).dmaLength(64);
            h.payload(64).fill((byte) 9);
            h.inject(64);
            h.run();
            assertThat(one.state()).isEqualTo(QpState.ERR);
            assertThat(h.events).contains(new EngineHarness.Event(one, AsyncEventType.QP_FATAL));
            assertThat(h.engine.counters().get("transport_errors")).isEqualTo(1);
            assertThat(two.state()).isEqualTo(QpState.RTS);
            List<EngineHarness.Sent> sent = h.sent();
            assertThat(sent).anySatisfy(s -> {
                assertThat(s.opcode()).isEqualTo(Opcodes.RC_ACKNOWLEDGE);
                assertThat(s.syndrome()).isEqualTo(Aeth.ACK);
                assertThat(s.psn()).isEqualTo(0x10);
            });
            assertThat(mem.asSlice(32 * 1024, 64).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly((byte) 9);
        } finally {
            table.deregisterAll();
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldKeepTheProgressThreadAliveWhenARoundThrows() throws Exception {
        AtomicInteger housekeepingRuns = new AtomicInteger();
        MemoryLink link = new MemoryLink(EngineHarness.LOCAL, EngineHarness.PORT);
        try (Engine engine = new Engine("throwing", link, key -> null, (qp, type) -> { }, () -> {
            housekeepingRuns.incrementAndGet();
            throw new IllegalStateException("housekeeping broke");
        })) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (housekeepingRuns.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(housekeepingRuns.get()).as("housekeeping ran again after it threw").isGreaterThanOrEqualTo(3);
            assertThat(engine.progressThread().isAlive()).isTrue();
            assertThat(engine.counters().get("engine_errors")).isGreaterThanOrEqualTo(3);
            // and it still serves the device: a packet for no QP is received and counted
            PacketWriter w = new PacketWriter();
            MemorySegment buf = MemorySegment.ofArray(new byte[64]);
            w.begin(buf, 0, Opcodes.RC_SEND_ONLY).bth().destQp(0x123456).psn(1);
            link.inject(buf, w.finish(0), EngineHarness.PEER, 0xC000);
            deadline = System.nanoTime() + 10_000_000_000L;
            while (link.counters().drops(dev.jrxe.net.DropReason.NO_QP) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(link.counters().drops(dev.jrxe.net.DropReason.NO_QP)).isEqualTo(1);
        }
    }
}
