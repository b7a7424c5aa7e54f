package bulk;

import common.Example;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Flush;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcBootstrap;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.RemoteBuffer;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.zip.CRC32;

/**
 * A bulk transfer with RDMA WRITE into an implicit On-Demand-Paging region. The receiver
 * registers its whole address space once ({@code addr 0, length -1, ON_DEMAND}) and never a
 * buffer: for each transfer it allocates memory of the size the sender asks for and hands back
 * its address under the one rkey. The sender WRITEs it in chunks (several in flight), FLUSHes the
 * range (its completion says the bytes are placed at the receiver), then sends a zero-length
 * WRITE_WITH_IMM whose immediate is the data's CRC32: the receiver's only completion per transfer.
 */
public final class BulkWrite {
    static final String USAGE = """
        Usage: ./jrxe example bulk [demo|receiver|sender] [options]
          demo (default)  a receiver and a sender in this JVM, each on its own device
          receiver        --ip A (127.0.0.2) --port P (18620) --transfers T (3)
          sender          --ip A (127.0.0.3) --server S (127.0.0.2) --port P --transfers T
                          --size MiB (32: transfer i moves i x size) --chunk KiB (1024) --depth D (8)
          --udp-port U    the devices' RoCE UDP port (4791)
        """;

    static final long TIMEOUT_MS = 30_000;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private BulkWrite() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code (0: every transfer arrived intact). */
    public static int run(String[] argv, PrintStream out) throws Exception {
        return Example.run(argv, out, USAGE, BulkWrite::run);
    }

    private static int run(Example.Args a, PrintStream out) throws Exception {
        int udp = a.getInt("udp-port", 4791);
        int port = a.getInt("port", 18620);
        int transfers = a.getInt("transfers", 3);
        long size = a.getInt("size", 32) * (1L << 20);
        int chunk = a.getInt("chunk", 1024) * 1024;
        int depth = a.getInt("depth", 8);
        Example.check(size > 0 && chunk > 0 && depth >= 1 && depth <= 64 && transfers >= 1,
            "--size, --chunk and --transfers must be positive, --depth 1..64");
        switch (a.role("demo")) {
            case "receiver" -> {
                return receive(a.get("ip", "127.0.0.2"), udp, port, transfers, out) ? 0 : 1;
            }
            case "sender" -> send(a.get("ip", "127.0.0.3"), udp, Example.address(a.get("server", "127.0.0.2"), port),
                transfers, size, chunk, depth, out);
            case "demo" -> {
                boolean[] ok = {false};
                Example.together(300, java.util.List.of(() -> {
                    ok[0] = receive("127.0.0.2", udp, port, transfers, out);
                    return null;
                }, () -> {
                    send("127.0.0.3", udp, new InetSocketAddress("127.0.0.2", port), transfers, size, chunk, depth, out);
                    return null;
                }));
                if (!ok[0]) {
                    return 1;
                }
                out.println("bulk: every transfer arrived intact");
            }
            default -> throw Example.unknownRole(a);
        }
        return 0;
    }

    static boolean receive(String ip, int udp, int port, int transfers, PrintStream out) throws IOException {
        try (Device dev = Device.open(DeviceConfig.of("bulk-receiver", ip).udpPort(udp))) {
            if ((dev.query().deviceCapFlags & DeviceAttr.CAP_FLUSH_GLOBAL) == 0) {
                throw new IOException("this device does not do FLUSH");
            }
            ProtectionDomain pd = dev.allocPd();
            // the whole address space, once: no buffer size is known (or registered) in advance
            MemoryRegion odp = pd.registerMemory(0, -1, Access.LOCAL_WRITE | Access.REMOTE_WRITE
                | Access.ON_DEMAND | Access.FLUSH_GLOBAL);
            CompletionQueue cq = dev.createCq(16);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(8, 8, 1, 1, 0)));
            RcConnect how = new RcConnect().accessFlags(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.FLUSH_GLOBAL);
            how.toInit(qp);
            RecvWr rwr = new RecvWr(1);
            // a control buffer for the size requests; it lies in the implicit region too
            try (Arena control = Arena.ofShared()) {
                MemorySegment msg = control.allocate(64, 64);
                for (int i = 0; i < 4; i++) {
                    qp.postRecv(rwr.sge(msg.address(), 8, odp.lkey()));
                }
                RcBootstrap.accept(qp, new InetSocketAddress(ip, port), Duration.ofMillis(TIMEOUT_MS), how);
                WorkCompletion[] one = {new WorkCompletion()};
                SendWr wr = new SendWr(1);
                boolean intact = true;
                for (int t = 0; t < transfers; t++) {
                    Example.awaitOpcode(cq, one, WcOpcode.RECV, TIMEOUT_MS);
                    long size = msg.get(U64, 0);
                    qp.postRecv(rwr); // each transfer takes two receives: its request and its immediate
                    try (Arena arena = Arena.ofShared()) {
                        MemorySegment dst = arena.allocate(size, 1 << 21);
                        // where to write, under the rkey the peer already has
                        new RemoteBuffer(dst.address(), size, odp.rkey()).encode(msg.asSlice(8, RemoteBuffer.BYTES).asByteBuffer());
                        wr.reset().sge(msg.address() + 8, RemoteBuffer.BYTES, odp.lkey()).sendFlags = SendFlags.SIGNALED;
                        qp.postSend(wr);
                        // the next completion that is not our SEND's: the WRITE_WITH_IMM that ends the transfer
                        WorkCompletion wc = Example.awaitOpcode(cq, one, WcOpcode.RECV_RDMA_WITH_IMM, TIMEOUT_MS);
                        int expected = wc.immData;
                        qp.postRecv(rwr);
                        CRC32 crc = new CRC32();
                        crc.update(dst.asByteBuffer());
                        boolean ok = (int) crc.getValue() == expected;
                        intact &= ok;
                        out.printf("bulk-receiver: transfer %d: %d MiB into a buffer allocated for it, CRC32 %08x %s%n",
                            t + 1, size >> 20, (int) crc.getValue(), ok ? "matches" : "DIFFERS from the sender's " + Integer.toHexString(expected));
                    }
                }
                out.printf("bulk-receiver: %d transfers under one implicit-ODP rkey 0x%x, no buffer registered%n",
                    transfers, odp.rkey());
                return intact;
            }
        }
    }

    static void send(String ip, int udp, InetSocketAddress server, int transfers, long size, int chunk, int depth,
        PrintStream out) throws IOException {
        long largest = size * transfers;
        try (Device dev = Device.open(DeviceConfig.of("bulk-sender", ip).udpPort(udp)); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            MemorySegment src = arena.allocate(largest + 4096, 4096);
            MemoryRegion mr = pd.registerMemory(src, Access.LOCAL_WRITE);
            CompletionQueue cq = dev.createCq(depth + 8);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(depth + 4, 4, 1, 1, 0)));
            RcConnect how = new RcConnect();
            how.toInit(qp);
            long ctl = largest; // the last page: size request and the receiver's answer
            RecvWr rwr = new RecvWr(1).sge(mr, ctl + 64, 64);
            RcBootstrap.connect(qp, server, Duration.ofMillis(TIMEOUT_MS), how);
            for (long i = 0; i < largest; i += 8) {
                src.set(U64, i, i * 0x9E3779B97F4A7C15L);
            }
            WorkCompletion[] one = {new WorkCompletion()};
            SendWr wr = new SendWr(1);
            for (int t = 1; t <= transfers; t++) {
                long bytes = size * t;
                qp.postRecv(rwr);
                src.set(U64, ctl, bytes);
                wr.reset().sge(mr, ctl, 8).sendFlags = SendFlags.SIGNALED;
                qp.postSend(wr);
                Example.awaitOpcode(cq, one, WcOpcode.RECV, TIMEOUT_MS);
                RemoteBuffer dst = RemoteBuffer.decode(src.asSlice(ctl + 64, RemoteBuffer.BYTES).asByteBuffer());
                long t0 = System.nanoTime();
                int inFlight = 0;
                for (long off = 0; off < bytes; off += chunk) {
                    while (inFlight == depth) {
                        inFlight -= written(Example.await(cq, one, TIMEOUT_MS));
                    }
                    int len = (int) Math.min(chunk, bytes - off);
                    wr.reset().sge(mr, off, len).remote(dst.at(off, len));
                    wr.opcode = WrOpcode.RDMA_WRITE;
                    wr.sendFlags = SendFlags.SIGNALED;
                    qp.postSend(wr);
                    inFlight++;
                }
                // FLUSH the range: its completion means every byte before it is placed at the receiver
                wr.reset().remote(dst);
                wr.opcode = WrOpcode.FLUSH;
                wr.flushType = Flush.GLOBAL;
                wr.flushLevel = Flush.RANGE;
                wr.flushLength = bytes;
                wr.sendFlags = SendFlags.SIGNALED;
                qp.postSend(wr);
                inFlight++;
                while (inFlight > 0) {
                    inFlight -= written(Example.await(cq, one, TIMEOUT_MS));
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                CRC32 crc = new CRC32();
                crc.update(src.asSlice(0, bytes).asByteBuffer());
                wr.reset().remote(dst.at(0, 0));
                wr.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
                wr.immData = (int) crc.getValue();
                wr.sendFlags = SendFlags.SIGNALED;
                qp.postSend(wr);
                Example.awaitOpcode(cq, one, WcOpcode.RDMA_WRITE, TIMEOUT_MS);
                out.printf("bulk-sender: transfer %d: %d MiB in %d KiB WRITEs (%d in flight) and a FLUSH: %.0f MB/s%n",
                    t, bytes >> 20, chunk >> 10, depth, bytes / seconds / 1e6).flush();
            }
        }
    }

    /** 1 for a WRITE's or the FLUSH's completion; 0 for the size request's SEND, which may come late. */
    private static int written(WorkCompletion wc) {
        return wc.opcode == WcOpcode.SEND ? 0 : 1;
    }
}
