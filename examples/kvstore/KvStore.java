package kvstore;

import common.Example;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WrOpcode;
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
import dev.jrxe.verbs.RemoteBuffer;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.zip.CRC32;

/**
 * A key-value store in the style of Pilaf and FaRM: the server keeps a hash table in a region
 * registered for remote READ; clients GET with RDMA READs of the buckets (the server's CPU never
 * sees a GET) and PUT with a SEND the server answers. Each bucket carries a CRC of itself, so a
 * READ that raced a PUT (a torn bucket) is seen and read again, as Pilaf's self-verifying tables.
 */
public final class KvStore {
    static final String USAGE = """
        Usage: ./jrxe example kv-store [demo|server|client] [options]
          demo (default)  a server and --clients clients in this JVM, each on its own device
          server          --ip A (127.0.0.2) --port P (18600) --clients N (2) --buckets B (4096)
          client          --ip A (127.0.0.3) --server S (127.0.0.2) --port P --id I (1) --keys K (200)
          --udp-port U    the devices' RoCE UDP port (4791)
        A client PUTs K keys by SEND, GETs each back by RDMA READ and checks every value.
        """;

    /** Bucket: crc32(4) version(4) keyLen(2) valueLen(2) key(48) value(68). */
    static final int BUCKET = 128;
    static final int MAX_KEY = 48;
    static final int MAX_VALUE = 68;
    static final int MAX_PROBES = 16;
    static final byte PUT = 1;
    static final byte BYE = 2;
    static final long TIMEOUT_MS = 10_000;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;

    private KvStore() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code (0: every value correct). */
    public static int run(String[] argv, PrintStream out) throws Exception {
        return Example.run(argv, out, USAGE, KvStore::run);
    }

    private static int run(Example.Args a, PrintStream out) throws Exception {
        int udp = a.getInt("udp-port", 4791);
        int port = a.getInt("port", 18600);
        int keys = a.getInt("keys", 200);
        int buckets = a.getInt("buckets", 4096);
        switch (a.role("demo")) {
            case "server" -> serve(a.get("ip", "127.0.0.2"), udp, port, a.getInt("clients", 2), buckets, out);
            case "client" -> {
                return client(a.get("ip", "127.0.0.3"), udp, Example.address(a.get("server", "127.0.0.2"), port),
                    a.getInt("id", 1), keys, out) ? 0 : 1;
            }
            case "demo" -> {
                int clients = a.getInt("clients", 2);
                boolean[] ok = new boolean[clients];
                java.util.List<java.util.concurrent.Callable<Void>> parties = new java.util.ArrayList<>();
                parties.add(() -> {
                    serve("127.0.0.2", udp, port, clients, buckets, out);
                    return null;
                });
                for (int c = 0; c < clients; c++) {
                    int id = c + 1;
                    parties.add(() -> {
                        ok[id - 1] = client("127.0.0." + (2 + id), udp, new InetSocketAddress("127.0.0.2", port), id, keys, out);
                        return null;
                    });
                }
                Example.together(120, parties);
                for (boolean b : ok) {
                    if (!b) {
                        return 1;
                    }
                }
                out.println("kv-store: all values correct");
            }
            default -> throw Example.unknownRole(a);
        }
        return 0;
    }

    // ------------------------------------------------------------------ server

    /** One client's connection on the server: its QP and its slice of the message buffer. */
    private record Conn(QueuePair qp, long recvOff, long replyOff) {
    }

    static void serve(String ip, int udp, int port, int clients, int buckets, PrintStream out) throws IOException {
        try (Device dev = Device.open(DeviceConfig.of("kv-server", ip).udpPort(udp)); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            // the table: clients READ it, only this thread writes it
            MemorySegment table = arena.allocate((long) buckets * BUCKET, 4096);
            MemoryRegion tableMr = pd.registerMemory(table, Access.LOCAL_WRITE | Access.REMOTE_READ);
            // per client: 8 receive slots of 256 bytes and one reply slot
            MemorySegment msgs = arena.allocate(clients * 9L * 256, 4096);
            MemoryRegion msgMr = pd.registerMemory(msgs, Access.LOCAL_WRITE);
            CompletionQueue cq = dev.createCq(clients * 32);
            Conn[] conns = new Conn[clients];
            RecvWr rwr = new RecvWr(1);
            // one listening socket for all: a client that comes while another is served waits in its backlog
            SendWr swr = new SendWr(1);
            WorkCompletion[] one = {new WorkCompletion()};
            try (java.net.ServerSocket listening = new java.net.ServerSocket()) {
                listening.setReuseAddress(true);
                listening.bind(new InetSocketAddress(ip, port));
                for (int c = 0; c < clients; c++) {
                    QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 8, 1, 1, 0)));
                    new RcConnect().toInit(qp);
                    long base = c * 9L * 256;
                    for (int s = 0; s < 8; s++) {
                        rwr.wrId = c * 8L + s;
                        qp.postRecv(rwr.sge(msgMr, base + s * 256L, 256));
                    }
                    RcBootstrap.accept(qp, listening, Duration.ofMillis(TIMEOUT_MS * 3), new RcConnect());
                    conns[c] = new Conn(qp, base, base + 8 * 256L);
                    // hello: where the table is, and how many buckets it has
                    MemorySegment hello = msgs.asSlice(conns[c].replyOff, 256);
                    tableMr.remote().encode(hello.asByteBuffer());
                    hello.set(U32, RemoteBuffer.BYTES, buckets);
                    // its completion comes in the loop below, maybe after the first client's PUTs
                    send(qp, swr.reset().sge(msgMr, conns[c].replyOff, RemoteBuffer.BYTES + 4));
                }
            }
            out.printf("kv-server: %d clients connected, table of %d buckets (%d KiB) at rkey 0x%x%n",
                clients, buckets, buckets * BUCKET / 1024, tableMr.rkey());
            int puts = 0;
            int open = clients;
            while (open > 0) {
                WorkCompletion wc = Example.await(cq, one, TIMEOUT_MS * 6);
                if (wc.opcode != WcOpcode.RECV) {
                    continue; // a reply's send completion
                }
                int c = (int) (wc.wrId / 8);
                Conn conn = conns[c];
                long at = conn.recvOff + (wc.wrId % 8) * 256;
                MemorySegment req = msgs.asSlice(at, 256);
                if (req.get(ValueLayout.JAVA_BYTE, 0) == BYE) {
                    open--;
                    continue;
                }
                byte status = put(table, buckets, req);
                puts++;
                rwr.wrId = wc.wrId;
                conn.qp.postRecv(rwr.sge(msgMr, at, 256));
                msgs.set(ValueLayout.JAVA_BYTE, conn.replyOff, status);
                send(conn.qp, swr.reset().sge(msgMr, conn.replyOff, 1));
            }
            out.printf("kv-server: served %d PUTs; the GETs were RDMA READs and never reached this CPU%n", puts);
        }
    }

    private static void send(QueuePair qp, SendWr wr) {
        wr.sendFlags = SendFlags.SIGNALED;
        qp.postSend(wr);
    }

    /** Stores the request's key and value: 0 stored, 1 table full around the key's bucket, 2 bad request. */
    static byte put(MemorySegment table, int buckets, MemorySegment req) {
        int keyLen = Short.toUnsignedInt(req.get(U16, 2));
        int valueLen = Short.toUnsignedInt(req.get(U16, 4));
        if (keyLen == 0 || keyLen > MAX_KEY || valueLen > MAX_VALUE) {
            return 2;
        }
        MemorySegment key = req.asSlice(6, keyLen);
        int home = Math.floorMod(hash(key), buckets);
        for (int p = 0; p < MAX_PROBES; p++) {
            MemorySegment b = table.asSlice((long) ((home + p) % buckets) * BUCKET, BUCKET);
            int version = b.get(U32, 4);
            if (version != 0 && !sameKey(b, key)) {
                continue;
            }
            b.set(U32, 4, version + 1);
            b.set(U16, 8, (short) keyLen);
            b.set(U16, 10, (short) valueLen);
            MemorySegment.copy(key, 0, b, 12, keyLen);
            MemorySegment.copy(req, 6 + keyLen, b, 12 + MAX_KEY, valueLen);
            b.set(U32, 0, crc(b));
            return 0;
        }
        return 1;
    }

    private static boolean sameKey(MemorySegment bucket, MemorySegment key) {
        return Short.toUnsignedInt(bucket.get(U16, 8)) == key.byteSize()
            && bucket.asSlice(12, key.byteSize()).mismatch(key) < 0;
    }

    static int hash(MemorySegment key) {
        int h = 0x811c9dc5; // FNV-1a
        for (long i = 0; i < key.byteSize(); i++) {
            h = (h ^ (key.get(ValueLayout.JAVA_BYTE, i) & 0xff)) * 0x01000193;
        }
        return h;
    }

    static int crc(MemorySegment bucket) {
        CRC32 crc = new CRC32();
        crc.update(bucket.asSlice(4, BUCKET - 4).asByteBuffer());
        return (int) crc.getValue();
    }

    // ------------------------------------------------------------------ client

    static boolean client(String ip, int udp, InetSocketAddress server, int id, int keys, PrintStream out) throws IOException {
        try (Device dev = Device.open(DeviceConfig.of("kv-client" + id, ip).udpPort(udp)); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            // [0, 256) requests, [256, 512) replies, [512, 640) the bucket a READ brings
            MemorySegment buf = arena.allocate(4096, 4096);
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            CompletionQueue cq = dev.createCq(32);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 4, 1, 1, 0)));
            new RcConnect().toInit(qp);
            RecvWr rwr = new RecvWr(1).sge(mr, 256, 256);
            qp.postRecv(rwr);
            RcBootstrap.connect(qp, server, Duration.ofMillis(TIMEOUT_MS * 3));
            WorkCompletion[] one = {new WorkCompletion()};
            Example.awaitOpcode(cq, one, WcOpcode.RECV, TIMEOUT_MS);
            RemoteBuffer table = RemoteBuffer.decode(buf.asSlice(256, RemoteBuffer.BYTES).asByteBuffer());
            int buckets = buf.get(U32, 256 + RemoteBuffer.BYTES);
            Client c = new Client(qp, cq, mr, buf, rwr, table, buckets);

            for (int i = 0; i < keys; i++) {
                c.put(key(id, i), value(id, i, 1));
            }
            // overwrite a tenth of them: a GET must see the newest value
            for (int i = 0; i < keys; i += 10) {
                c.put(key(id, i), value(id, i, 2));
            }
            int wrong = 0;
            long[] nanos = new long[keys];
            for (int i = 0; i < keys; i++) {
                long t0 = System.nanoTime();
                String got = c.get(key(id, i));
                nanos[i] = System.nanoTime() - t0;
                if (!value(id, i, i % 10 == 0 ? 2 : 1).equals(got)) {
                    wrong++;
                    out.printf("kv-client %d: GET %s gave %s%n", id, key(id, i), got);
                }
            }
            if (c.get("never-put-" + id) != null) {
                wrong++;
                out.printf("kv-client %d: a key never PUT was found%n", id);
            }
            buf.set(ValueLayout.JAVA_BYTE, 0, BYE);
            SendWr bye = new SendWr(1).sge(mr, 0, 1);
            send(qp, bye);
            Example.awaitOpcode(cq, one, WcOpcode.SEND, TIMEOUT_MS);
            out.printf("kv-client %d: %d PUTs by SEND, %d GETs by %d RDMA READs (%d torn reads retried), %s; GET %s%n",
                id, c.puts, keys + 1, c.reads, c.torn, wrong == 0 ? "every value correct" : wrong + " WRONG",
                Example.percentiles(nanos, keys));
            return wrong == 0;
        }
    }

    static String key(int client, int i) {
        return "client" + client + ":key" + i;
    }

    static String value(int client, int i, int generation) {
        return "value " + i + " of client " + client + ", generation " + generation;
    }

    /** A client's requests: PUT by SEND and reply, GET by READs of the key's buckets. */
    private static final class Client {
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion mr;
        final MemorySegment buf;
        final RecvWr rwr;
        final RemoteBuffer table;
        final int buckets;
        final SendWr wr = new SendWr(1);
        final WorkCompletion[] one = {new WorkCompletion()};
        int puts;
        int reads;
        int torn;

        Client(QueuePair qp, CompletionQueue cq, MemoryRegion mr, MemorySegment buf, RecvWr rwr, RemoteBuffer table,
            int buckets) {
            this.qp = qp;
            this.cq = cq;
            this.mr = mr;
            this.buf = buf;
            this.rwr = rwr;
            this.table = table;
            this.buckets = buckets;
        }

        void put(String key, String value) throws IOException {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            byte[] v = value.getBytes(StandardCharsets.UTF_8);
            buf.set(ValueLayout.JAVA_BYTE, 0, PUT);
            buf.set(U16, 2, (short) k.length);
            buf.set(U16, 4, (short) v.length);
            MemorySegment.copy(k, 0, buf, ValueLayout.JAVA_BYTE, 6, k.length);
            MemorySegment.copy(v, 0, buf, ValueLayout.JAVA_BYTE, 6 + k.length, v.length);
            qp.postRecv(rwr); // for the reply, before the request can bring it
            send(qp, wr.reset().sge(mr, 0, 6 + k.length + v.length));
            Example.awaitOpcode(cq, one, WcOpcode.RECV, TIMEOUT_MS);
            byte status = buf.get(ValueLayout.JAVA_BYTE, 256);
            if (status != 0) {
                throw new IOException("PUT " + key + " refused: " + (status == 1 ? "table full" : "bad request"));
            }
            puts++;
        }

        /** The value of {@code key}, or null: READs the buckets from the key's home on. */
        String get(String key) throws IOException {
            MemorySegment k = MemorySegment.ofArray(key.getBytes(StandardCharsets.UTF_8));
            int home = Math.floorMod(hash(k), buckets);
            MemorySegment b = buf.asSlice(512, BUCKET);
            for (int p = 0; p < MAX_PROBES; ) {
                long offset = (long) ((home + p) % buckets) * BUCKET;
                wr.reset().sge(mr, 512, BUCKET).remote(table.at(offset, BUCKET));
                wr.opcode = WrOpcode.RDMA_READ;
                send(qp, wr);
                // (the last PUT's send completion may come first: awaitOpcode passes over it)
                Example.awaitOpcode(cq, one, WcOpcode.RDMA_READ, TIMEOUT_MS);
                reads++;
                int version = b.get(U32, 4);
                if (version == 0) {
                    return null; // an empty bucket ends the probe sequence
                }
                if (b.get(U32, 0) != crc(b)) {
                    torn++; // the READ raced a PUT of this bucket: read it again
                    continue;
                }
                if (sameKey(b, k)) {
                    int len = Short.toUnsignedInt(b.get(U16, 10));
                    return new String(b.asSlice(12 + MAX_KEY, len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                }
                p++;
            }
            return null;
        }
    }
}
