package rpc;

import common.Example;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcBootstrap;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.SharedReceiveQueue;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * An RPC over SEND/RECV: every client has its own RC QP to the server, and all those QPs take
 * their receives from one shared receive queue, so the server's receive buffers are sized for
 * the requests in flight, not for the number of clients. A request is {@code [call id (8)]
 * [length (4)][bytes]}; the answer carries the same id and the bytes reversed. Each client times
 * its calls and prints the latency it saw.
 */
public final class Rpc {
    static final String USAGE = """
        Usage: ./jrxe example rpc [demo|server|client] [options]
          demo (default)  a server and --clients clients (3) in this JVM, each on its own device
          server          --ip A (127.0.0.2) --port P (18610) --clients N (3)
          client          --ip A (127.0.0.3) --server S (127.0.0.2) --port P --calls C (2000) --size B (64)
          --udp-port U    the devices' RoCE UDP port (4791)
        The server's QPs share one SRQ of 64 receives of 1 KiB; each client checks every answer.
        """;

    static final int SLOT = 1024;
    static final int SRQ_DEPTH = 64;
    static final long TIMEOUT_MS = 10_000;
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    private Rpc() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code (0: every answer correct). */
    public static int run(String[] argv, PrintStream out) throws Exception {
        return Example.run(argv, out, USAGE, Rpc::run);
    }

    private static int run(Example.Args a, PrintStream out) throws Exception {
        int udp = a.getInt("udp-port", 4791);
        int port = a.getInt("port", 18610);
        int calls = a.getInt("calls", 2000);
        int size = a.getInt("size", 64);
        Example.check(size >= 1 && size <= SLOT - 12, "--size must be 1.." + (SLOT - 12));
        switch (a.role("demo")) {
            case "server" -> serve(a.get("ip", "127.0.0.2"), udp, port, a.getInt("clients", 3), out);
            case "client" -> {
                return client(a.get("ip", "127.0.0.3"), udp, Example.address(a.get("server", "127.0.0.2"), port),
                    calls, size, out) ? 0 : 1;
            }
            case "demo" -> {
                int clients = a.getInt("clients", 3);
                boolean[] ok = new boolean[clients];
                java.util.List<java.util.concurrent.Callable<Void>> parties = new java.util.ArrayList<>();
                parties.add(() -> {
                    serve("127.0.0.2", udp, port, clients, out);
                    return null;
                });
                for (int c = 0; c < clients; c++) {
                    int i = c;
                    parties.add(() -> {
                        ok[i] = client("127.0.0." + (3 + i), udp, new InetSocketAddress("127.0.0.2", port), calls, size, out);
                        return null;
                    });
                }
                Example.together(120, parties);
                for (boolean b : ok) {
                    if (!b) {
                        return 1;
                    }
                }
                out.println("rpc: every answer correct");
            }
            default -> throw Example.unknownRole(a);
        }
        return 0;
    }

    static void serve(String ip, int udp, int port, int clients, PrintStream out) throws IOException {
        try (Device dev = Device.open(DeviceConfig.of("rpc-server", ip).udpPort(udp)); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            // SRQ_DEPTH receive slots shared by every client, then one answer slot per client
            MemorySegment buf = arena.allocate((long) (SRQ_DEPTH + clients) * SLOT, 4096);
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            SharedReceiveQueue srq = pd.createSrq(new SharedReceiveQueue.Attr(SRQ_DEPTH, 1, 0));
            RecvWr rwr = new RecvWr(1);
            for (int s = 0; s < SRQ_DEPTH; s++) {
                rwr.wrId = s;
                srq.postRecv(rwr.sge(mr, (long) s * SLOT, SLOT));
            }
            CompletionQueue cq = dev.createCq(SRQ_DEPTH + clients * 16);
            Map<Integer, Integer> clientOfQpn = new HashMap<>();
            QueuePair[] qps = new QueuePair[clients];
            // one listening socket for all: a client that comes while another is served waits in its backlog
            try (java.net.ServerSocket listening = new java.net.ServerSocket()) {
                listening.setReuseAddress(true);
                listening.bind(new InetSocketAddress(ip, port));
                for (int c = 0; c < clients; c++) {
                    QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 0, 1, 0, 0));
                    init.srq = srq; // no receive queue of its own
                    qps[c] = pd.createQp(init);
                    RcBootstrap.accept(qps[c], listening, Duration.ofMillis(TIMEOUT_MS * 3), new RcConnect());
                    clientOfQpn.put(qps[c].qpNum(), c);
                }
            }
            out.printf("rpc-server: %d clients on %d QPs, one SRQ of %d receives%n", clients, clients, SRQ_DEPTH);
            SendWr answer = new SendWr(1);
            WorkCompletion[] one = {new WorkCompletion()};
            int served = 0;
            int open = clients;
            while (open > 0) {
                WorkCompletion wc = Example.await(cq, one, TIMEOUT_MS * 6);
                if (wc.opcode != WcOpcode.RECV) {
                    continue; // an answer's send completion
                }
                int c = clientOfQpn.get(wc.qpNum); // which client's QP the request came on
                long req = wc.wrId * SLOT;
                int len = buf.get(U32, req + 8);
                long ans = (long) (SRQ_DEPTH + c) * SLOT;
                if (len < 0) {
                    open--; // the client is done
                } else {
                    buf.set(U64, ans, buf.get(U64, req));
                    buf.set(U32, ans + 8, len);
                    for (int i = 0; i < len; i++) {
                        buf.set(ValueLayout.JAVA_BYTE, ans + 12 + i, buf.get(ValueLayout.JAVA_BYTE, req + 12 + len - 1 - i));
                    }
                }
                rwr.wrId = wc.wrId; // the slot goes back to the shared queue
                srq.postRecv(rwr.sge(mr, req, SLOT));
                if (len >= 0) {
                    answer.reset().sge(mr, ans, 12 + len).sendFlags = SendFlags.SIGNALED;
                    qps[c].postSend(answer);
                    served++;
                }
            }
            out.printf("rpc-server: answered %d calls%n", served);
        }
    }

    static boolean client(String ip, int udp, InetSocketAddress server, int calls, int size, PrintStream out)
        throws IOException {
        String name = "rpc-client-" + ip;
        try (Device dev = Device.open(DeviceConfig.of(name, ip).udpPort(udp)); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            MemorySegment buf = arena.allocate(2 * SLOT, 4096); // [0, SLOT) request, [SLOT, 2 SLOT) answer
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            CompletionQueue cq = dev.createCq(32);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 4, 1, 1, 0)));
            new RcConnect().toInit(qp);
            RecvWr rwr = new RecvWr(1).sge(mr, SLOT, SLOT);
            RcBootstrap.connect(qp, server, Duration.ofMillis(TIMEOUT_MS * 3));
            SendWr req = new SendWr(1);
            WorkCompletion[] one = {new WorkCompletion()};
            long[] nanos = new long[calls];
            int wrong = 0;
            long start = System.nanoTime();
            for (int n = 0; n < calls; n++) {
                long id = ((long) qp.qpNum() << 32) | n;
                buf.set(U64, 0, id);
                buf.set(U32, 8, size);
                for (int i = 0; i < size; i++) {
                    buf.set(ValueLayout.JAVA_BYTE, 12 + i, (byte) (n + i));
                }
                long t0 = System.nanoTime();
                qp.postRecv(rwr);
                req.reset().sge(mr, 0, 12 + size).sendFlags = SendFlags.SIGNALED;
                qp.postSend(req);
                Example.awaitOpcode(cq, one, WcOpcode.RECV, TIMEOUT_MS);
                nanos[n] = System.nanoTime() - t0;
                boolean right = buf.get(U64, SLOT) == id && buf.get(U32, SLOT + 8) == size;
                for (int i = 0; right && i < size; i++) {
                    right = buf.get(ValueLayout.JAVA_BYTE, SLOT + 12 + i) == (byte) (n + size - 1 - i);
                }
                if (!right) {
                    wrong++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            buf.set(U32, 8, -1); // done
            req.reset().sge(mr, 0, 12).sendFlags = SendFlags.SIGNALED;
            qp.postSend(req);
            Example.awaitOpcode(cq, one, WcOpcode.SEND, TIMEOUT_MS);
            out.printf("rpc-client %s: %d calls of %d B, %s, %.0f calls/s; latency %s%n", ip, calls, size,
                wrong == 0 ? "every answer correct" : wrong + " WRONG", calls / seconds, Example.percentiles(nanos, calls));
            return wrong == 0;
        }
    }
}
