package dev.jrxe.net;

import dev.jrxe.internal.Internals;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * UD multicast as rxe does it, inside a network namespace the test creates (its own lo, with
 * multicast on): QPs attach to an IPv4-mapped group GID, the link joins the IPv4 group, a datagram
 * to the multicast QPN and the group reaches every attached QP of every device (Q_Key checked per
 * QP), and no longer a QP that detached. Needs root, as every namespace test.
 */
class UdMulticastTest {
    private static final int QKEY = 0x1234;
    private static final Gid GROUP = Gid.ofIpv4(0xEF010203); // 239.1.2.3

    /** One device with a UD QP, its buffer and CQ. */
    private record Node(Device dev, ProtectionDomain pd, MemorySegment buf, MemoryRegion mr, CompletionQueue cq,
                        QueuePair qp) implements AutoCloseable {
        static Node open(String addr, int port, Arena arena, int qkey, String mode) {
            Device d = Device.open(DeviceConfig.of("mc-" + addr, addr).udpPort(port).linkMode(mode));
            ProtectionDomain pd = d.allocPd();
            MemorySegment buf = arena.allocate(16384, 4096);
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            CompletionQueue cq = d.createCq(64);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.UD, cq, cq, new QpCap(16, 16, 1, 1, 0)));
            UdSetup.toRts(qp, qkey, 0);
            return new Node(d, pd, buf, mr, cq, qp);
        }

        void recv(int wrId) {
            RecvWr r = new RecvWr(1).sge(buf.address() + (long) wrId * 2048, 2048, mr.lkey());
            r.wrId = wrId;
            qp.postRecv(r);
        }

        WorkCompletion poll(long millis) {
            WorkCompletion[] wc = {new WorkCompletion()};
            long deadline = System.nanoTime() + millis * 1_000_000L;
            while (cq.poll(wc) == 0) {
                if (System.nanoTime() > deadline) {
                    return null;
                }
            }
            return wc[0];
        }

        @Override
        public void close() {
            qp.close();
            dev.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gso", "channel"})
    void shouldDeliverADatagramToEveryAttachedQpAndNoneThatDetached(String mode) throws Exception {
        try (NetNamespace ns = new NetNamespace()) {
            Tools.Result on = ns.exec("ip", "link", "set", "lo", "multicast", "on");
            assertThat(on.exit()).as(on.out()).isZero();
            ns.call(() -> {
                run(mode);
                return null;
            });
        }
    }

    private static void run(String mode) {
        int port = 4791;
        try (Arena arena = Arena.ofShared()) {
            Node a = Node.open("127.0.0.2", port, arena, QKEY, mode);
            Node b = Node.open("127.0.0.3", port, arena, QKEY, mode);
            Node c = Node.open("127.0.0.4", port, arena, QKEY, mode);
            Node wrongKey = Node.open("127.0.0.5", port, arena, QKEY + 1, mode);
            List<Node> all = List.of(a, b, c, wrongKey);
            try {
                b.qp.attachMcast(GROUP, 0);
                c.qp.attachMcast(GROUP, 0);
                c.qp.attachMcast(GROUP, 0); // twice: a no-op
                wrongKey.qp.attachMcast(GROUP, 0);
                assertThatThrownBy(c.qp::close).as("destroying an attached QP")
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
                assertThatThrownBy(() -> a.qp.attachMcast(Gid.ofIpv4(0x7F000003), 0))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
                for (Node n : all) {
                    n.recv(1);
                    n.recv(2);
                }
                try (AddressHandle ah = a.pd.createAh(new AhAttr(GROUP, 1))) {
                    send(a, ah, 100);
                    for (Node n : List.of(b, c)) {
                        WorkCompletion w = n.poll(5000);
                        assertThat(w).as("multicast datagram at %s", n.dev).isNotNull();
                        assertThat(w.status).isEqualTo(WcStatus.SUCCESS);
                        assertThat(w.srcQp).isEqualTo(a.qp.qpNum());
                        assertThat(w.wcFlags & WcFlags.GRH).isNotZero();
                        assertThat(w.byteLen).isEqualTo(40 + 100);
                        int dst = n.buf.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2048 + 36);
                        assertThat(dst).as("the GRH names the group").isEqualTo(GROUP.ipv4());
                    }
                    assertThat(wrongKey.poll(300)).as("another Q_Key").isNull();
                    assertThat(Internals.link(wrongKey.dev).counters().drops(DropReason.BAD_QKEY)).isPositive();
                    assertThat(a.poll(100)).as("a is not attached").isNotNull(); // its own send completion
                    c.qp.detachMcast(GROUP, 0);
                    assertThatThrownBy(() -> c.qp.detachMcast(GROUP, 0))
                        .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
                    send(a, ah, 64);
                    WorkCompletion w = b.poll(5000);
                    assertThat(w).isNotNull();
                    assertThat(w.byteLen).isEqualTo(40 + 64);
                    assertThat(c.poll(300)).as("c detached").isNull();
                }
            } finally {
                for (Node n : new ArrayList<>(all)) {
                    for (Node m : List.of(b, c, wrongKey)) {
                        if (m == n) {
                            try {
                                n.qp.detachMcast(GROUP, 0);
                            } catch (VerbsException ignored) {
                                // not attached (any more)
                            }
                        }
                    }
                    n.close();
                }
            }
        }
    }

    private static void send(Node from, AddressHandle ah, int len) {
        SendWr s = new SendWr(1).sge(from.buf.address(), len, from.mr.lkey());
        s.sendFlags = dev.jrxe.ib.SendFlags.SIGNALED;
        s.ah = ah;
        s.remoteQpn = 0xFFFFFF;
        s.remoteQkey = QKEY;
        from.qp.postSend(s);
    }
}
