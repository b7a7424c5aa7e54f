package dev.jrxe.wire;

import dev.jrxe.net.LinkCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

/**
 * Quick measurement, not a test: ns per ICRC computation, per ID solve and per RxDecoder call,
 * and bytes allocated per packet. Run after {@code mvn test-compile}:
 * {@code java -cp target/classes:target/test-classes dev.jrxe.wire.IcrcMicroBench}
 */
public final class IcrcMicroBench {
    private static final int ROUNDS = 5;
    private static final int N = 200_000;
    private static long sink;

    public static void main(String[] args) {
        try (Arena arena = Arena.ofConfined()) {
            for (String kind : new String[] {"heap", "native"}) {
                MemorySegment buf = kind.equals("heap") ? MemorySegment.ofArray(new byte[8192])
                    : arena.allocate(8192, 64);
                for (int payload : new int[] {0, 1024, 4096}) {
                    run(kind, buf, payload);
                }
            }
        }
    }

    private static void run(String kind, MemorySegment buf, int payload) {
        PacketWriter w = new PacketWriter();
        int op = payload == 0 ? Opcodes.RC_ACKNOWLEDGE : Opcodes.RC_SEND_MIDDLE;
        int len = RandomPackets.write(w, buf, 0, op, payload, new SplittableRandom(1));
        Icrc icrc = new Icrc();
        icrc.seal(buf, 0, len, 0x7F000002, 0x7F000003, 0xC001, 4791, 0x1234);
        RxDecoder rx = new RxDecoder(new LinkCounters(), 4791, 4096, (p, s, sp) -> sink += p.payloadLength());
        double compute = 0;
        double solve = 0;
        double decode = 0;
        long allocated = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < N; i++) {
                sink += icrc.compute(buf, 0, len, 0x7F000002, 0x7F000003, 0xC001, 4791, 0x1234);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < N; i++) {
                sink += icrc.solveIpId(buf, 0, len, 0x7F000002, 0x7F000003, 0xC001, 4791);
            }
            long t2 = System.nanoTime();
            long a0 = allocatedBytes();
            for (int i = 0; i < N; i++) {
                sink += rx.onDatagram(buf, 0, len, 0x7F000002, 0xC001, 0x7F000003);
            }
            long t3 = System.nanoTime();
            allocated = allocatedBytes() - a0;
            compute = (t1 - t0) / (double) N;
            solve = (t2 - t1) / (double) N;
            decode = (t3 - t2) / (double) N;
        }
        System.out.printf("%-6s %4d-byte payload (%4d-byte datagram): ICRC %7.1f ns (%.2f GB/s), solve ID %7.1f ns"
                + " (+%.1f ns over the CRC), RxDecoder %7.1f ns, allocated %d bytes / %d packets%n",
            kind, payload, len, compute, len / compute, solve, solve - compute, decode, allocated, N);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
