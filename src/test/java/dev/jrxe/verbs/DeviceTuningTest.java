package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.Configuration;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.EngineTuning;
import java.lang.foreign.Arena;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every tunable is per device (DeviceConfig), with the system properties only as defaults. */
class DeviceTuningTest {
    @Test
    void shouldTakeTheConfigurationDefaultsUnlessTheDeviceSetsItsOwn() {
        DeviceConfig plain = DeviceConfig.of("d", "127.0.0.2");
        assertThat(plain.tuning()).isEqualTo(EngineTuning.fromConfiguration());
        assertThat(plain.memory().maxMr()).isEqualTo(Configuration.memoryMaxMr());
        DeviceConfig tuned = DeviceConfig.of("d", "127.0.0.2").ackHoldNanos(0).lazyAckNanos(5_000).spinRounds(3)
            .maxSleepNanos(2_000_000).pollYieldEvery(100).appActiveNanos(500_000).srdPaths(2)
            .srdTimeout(Duration.ofMillis(7)).srdMaxPeers(9).maxPayload(1024).waitServes(false);
        assertThat(tuned.tuning()).isEqualTo(new EngineTuning(500_000, 3, 2_000_000, 100, 0, 5_000, 2, 7_000_000, 9, 1024, false));
        tuned.maxMr(5).pinLimitBytes(1 << 20).odpChildIdle(Duration.ofMillis(3)).odpMaxLiveChildren(4);
        assertThat(tuned.memory().maxMr()).isEqualTo(5);
        assertThat(tuned.memory().pinLimitBytes()).isEqualTo(1 << 20);
        assertThat(tuned.memory().childIdleNanos()).isEqualTo(3_000_000);
        assertThat(tuned.memory().maxLiveChildren()).isEqualTo(4);
    }

    @Test
    void shouldRefuseNonsenseAtOnce() {
        DeviceConfig c = DeviceConfig.of("d", "127.0.0.2");
        assertThatThrownBy(() -> c.linkBatch(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.ackHoldNanos(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.srdPaths(17)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.maxPayload(100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.pinLimitBytes(-2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.maxMr(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.ackHoldNanos(2_000_000)).as("above 1 ms").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.appActiveNanos(1_000_000_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldLimitRegionsPerDevice() {
        int port = RcFixture.nextPort();
        try (Device small = Device.open(DeviceConfig.of("small", "127.0.0.2").udpPort(port).maxMr(2).jmx(false));
             Device big = Device.open(DeviceConfig.of("big", "127.0.0.3").udpPort(port).jmx(false));
             Arena arena = Arena.ofConfined()) {
            ProtectionDomain ps = small.allocPd();
            ProtectionDomain pb = big.allocPd();
            ps.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE);
            ps.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE);
            assertThatThrownBy(() -> ps.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
            for (int i = 0; i < 3; i++) {
                pb.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE);
            }
            assertThat(small.mbeanName()).as("jmx(false)").isNull();
        }
        try (Device d = Device.open(DeviceConfig.of("mtu", "127.0.0.2").udpPort(port).maxPayload(1024).jmx(false))) {
            assertThat(d.activeMtu()).as("no larger than the payload it accepts").isEqualTo(dev.jrxe.ib.Mtu.MTU_1024);
        }
    }

    @Test
    void shouldRunEachDeviceByItsOwnAckHold() {
        // b never holds an ACK (0); a holds by the default: only a's ACKs ride with its answers
        try (RcFixture f = new RcFixture(DeviceConfig.of("jrxe-a", "127.0.0.2"),
            DeviceConfig.of("jrxe-b", "127.0.0.3").ackHoldNanos(0), 8192)) {
            assertThat(f.a.engine().tuning().ackHoldNanos()).isEqualTo(Configuration.engineAckHoldNanos());
            assertThat(f.b.engine().tuning().ackHoldNanos()).isZero();
            f.connect();
            RecvWr ra = new RecvWr(1).sge(f.bufA.address() + 4096, 64, f.mra.lkey());
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            SendWr sb = new SendWr(1).sge(f.bufB.address(), 32, f.mrb.lkey());
            sb.sendFlags = SendFlags.SIGNALED;
            LinkCounters lb = f.b.link().counters();
            long calls0 = 0;
            long pkts0 = 0;
            for (int i = 0; i < 200; i++) {
                if (i == 100) {
                    calls0 = lb.txCalls();
                    pkts0 = lb.txPackets();
                }
                f.qb.postRecv(rb);
                f.qa.postSend(sa);
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                f.qa.postRecv(ra);
                f.qb.postSend(sb);
                int done = 0;
                while (done < 2) {
                    WorkCompletion c = f.pollOk(f.cqa);
                    done += c.opcode == WcOpcode.RECV || c.opcode == WcOpcode.SEND ? 1 : 0;
                }
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.SEND);
            }
            // held for 0 ns, every ACK of b leaves in the cycle that received the message, alone
            assertThat(lb.txCalls() - calls0).isEqualTo(lb.txPackets() - pkts0);
        }
    }
}
