package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Lifetimes as {@code Arena}'s: closing a device closes what hangs off it, in reverse order of
 * dependence, and any later use throws IllegalStateException; a PD or CQ still in use cannot be
 * closed (EBUSY, rdma-core's rule), and can once what uses it is gone.
 */
class LifetimeTest {
    private static Device open() {
        return Device.open(DeviceConfig.of("jrxe-life", "127.0.0.2").udpPort(RcFixture.nextPort()));
    }

    @Test
    void shouldCloseEverythingOfADeviceWithItAndRefuseAnyLaterUse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            Device dev = open();
            ProtectionDomain pd = dev.allocPd();
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            CompletionQueue cq = dev.createCq(16);
            SharedReceiveQueue srq = pd.createSrq(new SharedReceiveQueue.Attr(16, 1, 0));
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0)));
            new RcConnect().toInit(qp);
            QpInitAttr withEx = new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0));
            withEx.sendOpsFlags = SendOps.SEND;
            QpEx x = pd.createQp(withEx).ex();
            int lkey = mr.lkey();
            assertThat(dev.keys().lookup(lkey)).isNotNull();

            dev.close();

            assertThat(dev.liveQps()).isZero();
            assertThat(dev.keys().lookup(lkey)).as("the MR is deregistered").isNull();
            SendWr wr = new SendWr(1).sge(buf.address(), 64, lkey);
            assertThatThrownBy(() -> qp.postSend(wr)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> qp.postRecv(new RecvWr(1).sge(buf.address(), 64, lkey)))
                .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> cq.poll(new WorkCompletion[] {new WorkCompletion()}))
                .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(qp::query).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(x::start).as("an extended batch").isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(dev::allocPd).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> dev.createCq(4)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> pd.registerMemory(buf, Access.LOCAL_WRITE)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(4, 4, 1, 1, 0))))
                .isInstanceOf(IllegalStateException.class);
            // closing what the device closed already is harmless, in any order
            qp.close();
            srq.close();
            mr.close();
            cq.close();
            pd.close();
            dev.close();
        }
    }

    @Test
    void shouldRefuseToDeallocateAPdInUseWithEbusy() {
        try (Arena arena = Arena.ofConfined(); Device dev = open()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            ProtectionDomain pd = dev.allocPd();
            CompletionQueue cq = dev.createCq(16);

            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            assertEbusy(pd::close);
            mr.close();

            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0)));
            assertEbusy(pd::close);
            assertEbusy(cq::close);
            qp.close();

            SharedReceiveQueue srq = pd.createSrq(new SharedReceiveQueue.Attr(16, 1, 0));
            assertEbusy(pd::close);
            srq.close();

            AddressHandle ah = pd.createAh(new AhAttr(dev.queryGid(1, Device.IPV4_GID_INDEX), Device.IPV4_GID_INDEX));
            assertEbusy(pd::close);
            ah.close();

            MemoryWindow mw = pd.allocMw(1);
            assertEbusy(pd::close);
            mw.close();

            pd.close();
            cq.close();
            assertThatThrownBy(() -> cq.poll(new WorkCompletion[1])).isInstanceOf(IllegalStateException.class);
            CompletionQueue cx = dev.createCqEx(4, null, 0, 0);
            CqEx x = cx.ex();
            cx.close();
            assertThatThrownBy(x::startPoll).as("the extended poll too").isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> pd.registerMemory(buf, Access.LOCAL_WRITE)).isInstanceOf(IllegalStateException.class);
        }
    }

    private static void assertEbusy(Runnable close) {
        assertThatThrownBy(close::run).isInstanceOfSatisfying(VerbsException.class,
            e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
    }
}
