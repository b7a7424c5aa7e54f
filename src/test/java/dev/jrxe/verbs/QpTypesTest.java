package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.Errno;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * rdma-core's tests/test_qp.py for the QP types jrxe has (RC, UC, UD; RAW_PACKET needs a raw
 * Ethernet port and is skipped there too), and test_cq_events' UD case: one test per case.
 */
class QpTypesTest {
    private static QpInitAttr init(int type, CompletionQueue cq) {
        return new QpInitAttr(type, cq, cq, new QpCap(16, 16, 1, 1, 0));
    }

    /** pyverbs' "with attr": walks the QP forward as far as it can without a peer. */
    private static void walk(QueuePair qp, Device d) {
        if (qp.qpType() == QpType.UD) {
            UdSetup.toRts(qp, 0x1234, 0);
        } else {
            new RcConnect().toInit(qp);
        }
    }

    /** test_create_{rc,uc,ud}_qp_{no,with}_attr and the _ex forms (one constructor here). */
    @ParameterizedTest
    @ValueSource(ints = {QpType.RC, QpType.UC, QpType.UD})
    void shouldCreateInResetAndWalkToInitOrRts(int type) {
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32)) {
            try (QueuePair plain = pd.createQp(init(type, cq))) {
                assertThat(plain.state()).isEqualTo(QpState.RESET);
                assertThat(plain.qpType()).isEqualTo(type);
            }
            try (QueuePair walked = pd.createQp(init(type, cq))) {
                walk(walked, d);
                assertThat(walked.state()).isEqualTo(type == QpType.UD ? QpState.RTS : QpState.INIT);
            }
        }
    }

    /** test_query_{rc,uc,ud}_qp: state RESET, caps at least those asked for. */
    @ParameterizedTest
    @ValueSource(ints = {QpType.RC, QpType.UC, QpType.UD})
    void shouldQueryStateAndCaps(int type) {
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32);
             QueuePair qp = pd.createQp(init(type, cq))) {
            QpAttr a = qp.query();
            assertThat(a.qpState).isEqualTo(QpState.RESET);
            assertThat(a.cap.maxSendWr).isGreaterThanOrEqualTo(16);
            assertThat(a.cap.maxRecvWr).isGreaterThanOrEqualTo(16);
            assertThat(a.cap.maxSendSge).isGreaterThanOrEqualTo(1);
            assertThat(a.cap.maxRecvSge).isGreaterThanOrEqualTo(1);
        }
    }

    /** test_create_raw_qp_ex_with_illegal_caps_* (UD QPs there): more than the device has fails. */
    @Test
    void shouldRefuseCapsBeyondTheDevice() {
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32)) {
            QpCap[] bad = {new QpCap(0xffffffff, 16, 1, 1, 0), new QpCap(16, 0xffffffff, 1, 1, 0),
                new QpCap(16, 16, 0xffff, 1, 0), new QpCap(16, 16, 1, 0xffff, 0)};
            for (QpCap c : bad) {
                assertThatThrownBy(() -> pd.createQp(new QpInitAttr(QpType.UD, cq, cq, c)))
                    .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isNotZero());
            }
        }
    }

    /** test_query_data_in_order. */
    @Test
    void shouldAnswerTheDataInOrderQuery() {
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32);
             QueuePair qp = pd.createQp(init(QpType.UD, cq))) {
            assertThat(qp.queryDataInOrder(dev.jrxe.ib.WrOpcode.SEND, 0)).isIn(0, 1);
            assertThat(qp.queryDataInOrder(dev.jrxe.ib.WrOpcode.SEND, QueuePair.DATA_IN_ORDER_RETURN_CAPS))
                .isIn(0, QueuePair.DATA_IN_ORDER_ALIGNED_128_BYTES,
                    QueuePair.DATA_IN_ORDER_WHOLE_MSG | QueuePair.DATA_IN_ORDER_ALIGNED_128_BYTES);
        }
    }

    /** test_modify_ud_qp: INIT with Q_Key 0x123, RTS with SQ PSN 0x45, both queried back; then RESET. */
    @Test
    void shouldModifyAUdQp() {
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32);
             QueuePair qp = pd.createQp(init(QpType.UD, cq))) {
            QpAttr a = new QpAttr();
            a.qpState = QpState.INIT;
            a.pkeyIndex = 0;
            a.portNum = 1;
            a.qkey = 0x123;
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
            assertThat(qp.query().qkey).isEqualTo(0x123);
            qp.modify(new QpAttr().state(QpState.RTR), QpAttrMask.STATE);
            QpAttr r = new QpAttr();
            r.qpState = QpState.RTS;
            r.sqPsn = 0x45;
            qp.modify(r, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            assertThat(qp.query().sqPsn).isEqualTo(0x45);
            assertThat(qp.state()).isEqualTo(QpState.RTS);
            qp.modify(new QpAttr().state(QpState.RESET), QpAttrMask.STATE);
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            // a UD QP takes no connection attributes (the kernel's table): EINVAL, nothing changed
            QpAttr av = new QpAttr();
            av.qpState = QpState.INIT;
            av.qkey = 1;
            av.destQpNum = 5;
            assertThatThrownBy(() -> qp.modify(av, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT
                | QpAttrMask.QKEY | QpAttrMask.DEST_QPN))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(qp.state()).isEqualTo(QpState.RESET);
        }
    }

    /**
     * test_create_ud_qp_with_privileged_qkey: a controlled Q_Key (0x80000000) needs privilege —
     * EPERM without it (the kernel's rule for a process without CAP_NET_RAW), settable and
     * queryable with it.
     */
    @Test
    void shouldGuardPrivilegedQkeys() {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.portNum = 1;
        a.qkey = 0x80000000;
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY;
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort()));
             ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32);
             QueuePair qp = pd.createQp(init(QpType.UD, cq))) {
            assertThatThrownBy(() -> qp.modify(a, mask))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EPERM));
            assertThat(qp.state()).isEqualTo(QpState.RESET);
        }
        try (Device d = Device.open(DeviceConfig.of("qpt", "127.0.0.2").udpPort(RcFixture.nextPort())
            .privilegedQkey(true)); ProtectionDomain pd = d.allocPd(); CompletionQueue cq = d.createCq(32);
             QueuePair qp = pd.createQp(init(QpType.UD, cq))) {
            qp.modify(a, mask);
            assertThat(qp.query().qkey).isEqualTo(0x80000000);
        }
    }

    /** test_cq_events with UD traffic: a completion channel wakes for a datagram. */
    @Test
    void shouldWakeACompletionChannelForUdTraffic() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            CompletionChannel ch = f.b.createCompChannel();
            CompletionQueue cq = f.b.createCq(16, ch, 0);
            try (QueuePair ua = f.pda.createQp(init(QpType.UD, f.cqa)); QueuePair ub = f.pdb.createQp(init(QpType.UD, cq));
                 AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                UdSetup.toRts(ua, 7, 0);
                UdSetup.toRts(ub, 7, 0);
                cq.requestNotify(false);
                ub.postRecv(new RecvWr(1).sge(f.bufB.address(), 40 + 64, f.mrb.lkey()));
                SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
                s.ah = ah;
                s.remoteQpn = ub.qpNum();
                s.remoteQkey = 7;
                ua.postSend(s);
                CompletionQueue fired = ch.getEvent(5, TimeUnit.SECONDS);
                assertThat(fired).isSameAs(cq);
                fired.ackEvents(1);
                assertThat(f.pollOk(cq).byteLen).isEqualTo(40 + 64);
            }
            cq.close();
        }
    }
}
