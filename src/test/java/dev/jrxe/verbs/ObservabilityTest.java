package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.Configuration;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * What a user sees of a device from outside: its counters as MBeans under dev.jrxe, and JFR events
 * for QP state changes, retransmissions, NAKs, RNR waits and ODP faults and children, read back
 * with jdk.jfr.consumer after a run that causes each.
 */
class ObservabilityTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void shouldShowEachDevicesCountersAsAnMBeanWhileItIsOpen() throws Exception {
        ObjectName first;
        ObjectName second;
        try (RcFixture f = new RcFixture(DeviceConfig.of("obs", "127.0.0.2"), DeviceConfig.of("obs", "127.0.0.3"), 4096)) {
            f.connect();
            SendWr w = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(w);
            f.pollOk(f.cqa);
            first = f.a.mbeanName();
            second = f.b.mbeanName();
            assertThat(first).hasToString("dev.jrxe:type=Device,name=obs");
            assertThat(second).as("a second device of that name").hasToString("dev.jrxe:type=Device,name=obs,instance=2");
            assertThat(SERVER.getAttribute(first, "sent_pkts")).isEqualTo(f.a.counters().get("sent_pkts"))
                .isEqualTo(1L);
            assertThat((Long) SERVER.getAttribute(second, "rcvd_pkts")).isEqualTo(1L);
            assertThat((Long) SERVER.getAttribute(first, "link_tx_packets")).isGreaterThanOrEqualTo(1L);
            assertThat((Long) SERVER.getAttribute(first, "live_qps")).isEqualTo(1L);
            assertThat((Long) SERVER.getAttribute(first, "memory_regions")).isEqualTo(1L);
            assertThat(SERVER.getMBeanInfo(first).getAttributes()).extracting(a -> a.getName())
                .contains("rcvd_rnr_err", "rkey_invalid", "drop_bad_icrc",
                    "memory_page_faults");
            assertThat(SERVER.queryNames(new ObjectName("dev.jrxe:type=Device,*"), null)).contains(first, second);
        }
        assertThat(SERVER.isRegistered(first)).as("unregistered on close").isFalse();
        assertThat(SERVER.isRegistered(second)).isFalse();
    }

    @Test
    void shouldRecordJfrEventsForStatesRetransmissionsNaksRnrWaitsAndOdp() throws Exception {
        Path file = Files.createTempFile("jrxe", ".jfr");
        String idle = System.getProperty(Configuration.MEMORY_CHILD_IDLE_MS_PROP);
        System.setProperty(Configuration.MEMORY_CHILD_IDLE_MS_PROP, "1");
        MemorySegment odp = NativeMemory.map(1 << 16);
        try (Recording r = new Recording()) {
            for (String e : List.of("dev.jrxe.QpState", "dev.jrxe.Retransmit", "dev.jrxe.Nak", "dev.jrxe.RnrWait",
                "dev.jrxe.OdpFault", "dev.jrxe.OdpChild")) {
                r.enable(e);
            }
            r.start();
            // a lossy link: retransmissions
            DeviceConfig ca = DeviceConfig.of("jfr-a", "127.0.0.2").faults(0.1, 0, 0, 5);
            DeviceConfig cb = DeviceConfig.of("jfr-b", "127.0.0.3").faults(0.1, 0, 0, 6);
            try (RcFixture f = new RcFixture(ca, cb, 1 << 16)) {
                f.connect(new QpCap(16, 16, 1, 1, 0), new RcConnect().timeout(12).retries(7, 7).minRnrTimer(1));
                // RNR: a SEND before any receive is posted, then the receive
                SendWr send = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
                send.sendFlags = SendFlags.SIGNALED;
                f.qa.postSend(send);
                Thread.sleep(20);
                RecvWr recv = new RecvWr(1).sge(f.bufB.address(), 4096, f.mrb.lkey());
                f.qb.postRecv(recv);
                f.pollOk(f.cqa);
                f.pollOk(f.cqb);
                // WRITEs under loss into explicit and implicit ODP regions: faults, a child, retransmissions
                MemoryRegion explicit = f.pdb.registerMemory(odp, RcFixture.ALL_ACCESS | Access.ON_DEMAND);
                MemoryRegion implicit = f.pdb.registerMemory(0, -1L, RcFixture.ALL_ACCESS | Access.ON_DEMAND);
                SendWr w = new SendWr(1);
                w.opcode = WrOpcode.RDMA_WRITE;
                w.sendFlags = SendFlags.SIGNALED;
                for (int i = 0; i < 40; i++) {
                    MemoryRegion to = i % 2 == 0 ? explicit : implicit;
                    w.sge(f.bufA.address(), 1024, f.mra.lkey()).rdma(odp.address() + (i % 16) * 4096L, to.rkey());
                    f.qa.postSend(w);
                    f.pollOk(f.cqa);
                }
                Thread.sleep(5);
                f.b.keys().reclaimIdleChildren(); // unless the device's housekeeping already has
                assertThat(f.b.keys().counters().childrenReclaimed()).as("the idle child reclaimed").isPositive();
                // a NAK: a WRITE with a key that does not exist; both QPs end in ERR
                w.rdma(f.bufB.address(), f.mrb.rkey() ^ 0x55);
                f.qa.postSend(w);
                assertThat(WcStatus.str(f.poll(f.cqa).status)).isEqualTo(WcStatus.str(WcStatus.REM_ACCESS_ERR));
                implicit.close();
                explicit.close();
            }
            r.stop();
            r.dump(file);
        } finally {
            NativeMemory.unmap(odp);
            if (idle == null) {
                System.clearProperty(Configuration.MEMORY_CHILD_IDLE_MS_PROP);
            } else {
                System.setProperty(Configuration.MEMORY_CHILD_IDLE_MS_PROP, idle);
            }
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Files.delete(file);
        Map<String, List<RecordedEvent>> byType = events.stream()
            .filter(e -> e.getEventType().getName().startsWith("dev.jrxe."))
            .collect(Collectors.groupingBy(e -> e.getEventType().getName()));

        List<RecordedEvent> states = byType.getOrDefault("dev.jrxe.QpState", List.of());
        for (String dev : List.of("jfr-a", "jfr-b")) {
            assertThat(states.stream().filter(e -> e.getString("device").equals(dev))
                .map(e -> e.getString("from") + ">" + e.getString("to")))
                .as("%s's QP states", dev).containsSubsequence("RESET>INIT", "INIT>RTR", "RTR>RTS", "RTS>ERR");
        }
        assertThat(byType.get("dev.jrxe.Retransmit")).as("retransmissions under 10%% loss").isNotEmpty()
            .allSatisfy(e -> assertThat(e.getString("reason")).isIn("ACK timeout", "PSN sequence NAK",
                "READ/atomic response missing"));
        List<RecordedEvent> naks = byType.get("dev.jrxe.Nak");
        assertThat(naks).anyMatch(kind("jfr-b", "sent", "RNR NAK")).anyMatch(kind("jfr-a", "received", "RNR NAK"))
            .anyMatch(kind("jfr-b", "sent", "NAK remote access error"))
            .anyMatch(kind("jfr-a", "received", "NAK remote access error"));
        assertThat(byType.get("dev.jrxe.RnrWait")).as("RNR waits").isNotEmpty()
            .allSatisfy(e -> assertThat(e.getLong("wait")).isPositive());
        assertThat(byType.get("dev.jrxe.OdpFault")).anyMatch(e -> !e.getBoolean("implicit"))
            .anyMatch(e -> e.getBoolean("implicit")).allSatisfy(e -> assertThat(e.getInt("pages")).isPositive());
        assertThat(byType.get("dev.jrxe.OdpChild")).extracting(e -> e.getString("action"))
            .contains("created", "reclaimed");
    }

    private static Predicate<RecordedEvent> kind(String device, String direction, String kind) {
        return e -> e.getString("device").equals(device) && e.getString("direction").equals(direction)
            && e.getString("kind").equals(kind);
    }
}
