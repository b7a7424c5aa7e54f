package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.cm.RdmaClient;
import dev.jrxe.cm.RdmaEndpoint;
import dev.jrxe.cm.RdmaServer;
import dev.jrxe.cm.ServiceIds;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CM on the wire: a connect and a disconnect between two jrxe devices, captured: every MAD is
 * a UD SEND_ONLY from QP1 to QP1 with the GSI Q_Key from UDP port 55410, tshark decodes REQ, REP,
 * RTU, DREQ, DREP and REJ as InfiniBand CM with the fields jrxe meant (service ID, QPNs, PSNs, the
 * rdma_cm header's addresses), and the roce_check.py oracle passes every packet.
 */
class CmCaptureTest {
    private static final int PORT = 27791 + (int) (ProcessHandle.current().pid() % 1000);

    @Test
    void shouldPutCmMadsOnTheWireThatTsharkDecodes(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("cm.pcapng");
        int clientQpn;
        int serverQpn;
        try (Device a = Device.open(DeviceConfig.of("cmcap-a", "127.0.0.2").udpPort(PORT));
             Device b = Device.open(DeviceConfig.of("cmcap-b", "127.0.0.3").udpPort(PORT).pcap(pcap));
             RdmaServer server = RdmaServer.bind(a, 7174)) {
            try (RdmaEndpoint c = RdmaClient.connect(b, a.address(), 7174);
                 RdmaEndpoint s = server.accept(Duration.ofSeconds(5))) {
                clientQpn = c.qp().qpNum();
                serverQpn = s.qp().qpNum();
            }
            try {
                RdmaClient.connect(b, a.address(), 7175).close(); // nothing listens: a REJ
            } catch (dev.jrxe.cm.CmException expected) {
                // refused, as meant
            }
        }
        assertThat(Tools.roceCheck(pcap, PORT).out()).contains(" 0 failed");
        List<String[]> mads = Tools.tsharkFields(pcap, PORT, "infiniband.mad", "ip.src", "udp.srcport",
            "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.deth.q_key", "infiniband.deth.srcqp",
            "infiniband.mad.mgmtclass", "infiniband.mad.classversion", "infiniband.mad.method",
            "infiniband.mad.attributeid");
        assertThat(mads).hasSizeGreaterThanOrEqualTo(5);
        for (String[] m : mads) {
            assertThat(m[1]).as("QP1's source port").isEqualTo("55410");
            assertThat(m[2]).isEqualTo("100");
            assertThat(Long.decode(m[3])).isEqualTo(1);
            assertThat(Long.decode(m[4])).isEqualTo(0x80010000L);
            assertThat(Long.decode(m[5])).isEqualTo(1);
            assertThat(Long.decode(m[6])).isEqualTo(7);
            assertThat(Long.decode(m[7])).isEqualTo(2);
            assertThat(Long.decode(m[8])).isEqualTo(3);
        }
        List<Long> attrs = mads.stream().map(m -> Long.decode(m[9])).toList();
        assertThat(attrs).containsSubsequence(0x10L, 0x13L, 0x14L, 0x15L, 0x16L, 0x10L, 0x12L); // ... REQ REJ
        String[] rej = Tools.tsharkFields(pcap, PORT, "infiniband.cm.rej.reason", "infiniband.cm.rej.reason").getFirst();
        assertThat(Long.decode(rej[0])).as("invalid service ID").isEqualTo(8);

        String[] req = Tools.tsharkFields(pcap, PORT, "infiniband.cm.req", "infiniband.cm.req.serviceid.dport",
            "infiniband.cm.req.localqpn", "infiniband.cm.req.ip_cm.sip4", "infiniband.cm.req.ip_cm.dip4",
            "infiniband.cm.req.transpsvctype", "infiniband.cm.req.maxcmretr").getFirst();
        assertThat(Long.decode(req[0])).isEqualTo(7174);
        assertThat(Long.decode(req[1])).isEqualTo(clientQpn);
        assertThat(req[2]).isEqualTo("127.0.0.3");
        assertThat(req[3]).isEqualTo("127.0.0.2");
        assertThat(Long.decode(req[4])).isZero();
        String[] rep = Tools.tsharkFields(pcap, PORT, "infiniband.cm.rep", "infiniband.cm.rep.localqpn").getFirst();
        assertThat(Long.decode(rep[0])).isEqualTo(serverQpn);
        assertThat(ServiceIds.of(ServiceIds.PS_TCP, 7174)).isEqualTo(0x0000000001061c06L);
    }
}
