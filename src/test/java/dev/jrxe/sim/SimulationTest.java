package dev.jrxe.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The deterministic simulation: a run is a function of its seed (and of its fault schedule, which
 * replays it exactly), and 2,000 seeds of the suite's profile pass. A failing seed is printed with
 * the command that reproduces it; {@code -Djrxe.sim.seed=N} runs only that seed here,
 * {@code -Djrxe.sim.seeds=K} another number of seeds.
 */
class SimulationTest {
    @Test
    void shouldRepeatARunExactly() {
        Simulation.Result a = Simulation.run(11, Simulation.plan(11), Simulation.Settings.QUICK);
        Simulation.Result b = Simulation.run(11, Simulation.plan(11), Simulation.Settings.QUICK);
        assertThat(a.passed()).as(a.failure()).isTrue();
        assertThat(a.datagrams()).isPositive();
        assertThat(a.faults()).isNotEmpty();
        assertThat(b.digest()).isEqualTo(a.digest());
        assertThat(b.faults()).isEqualTo(a.faults());
        Simulation.Result other = Simulation.run(12, Simulation.plan(12), Simulation.Settings.QUICK);
        assertThat(other.digest()).isNotEqualTo(a.digest());
    }

    @Test
    void shouldReplayARunFromItsFaultSchedule() {
        Simulation.Result a = Simulation.run(4, Simulation.plan(4), Simulation.Settings.QUICK);
        Simulation.Result replay = Simulation.run(4, FaultPlan.scripted(a.faults()), Simulation.Settings.QUICK);
        assertThat(replay.digest()).isEqualTo(a.digest());
        Simulation.Result clean = Simulation.run(4, FaultPlan.scripted(List.of()), Simulation.Settings.QUICK);
        assertThat(clean.passed()).isTrue();
        assertThat(clean.faults()).isEmpty();
        assertThat(clean.datagrams()).isLessThan(a.datagrams());
    }

    @Test
    void shouldPassTwoThousandSeeds() {
        String one = System.getProperty("jrxe.sim.seed");
        long first = one != null ? Long.parseLong(one) : 1;
        int count = one != null ? 1 : Integer.getInteger("jrxe.sim.seeds", 2000);
        List<String> failures = new ArrayList<>();
        long datagrams = 0;
        long faults = 0;
        long breaks = 0;
        java.util.Map<String, Long> counters = new java.util.TreeMap<>();
        for (long seed = first; seed < first + count; seed++) {
            Simulation.Result r = Simulation.run(seed, Simulation.plan(seed), Simulation.Settings.QUICK);
            datagrams += r.datagrams();
            faults += r.faults().size();
            breaks += r.breaks();
            r.counters().forEach((k, v) -> counters.merge(k, v, Long::sum));
            if (!r.passed()) {
                failures.add("seed " + seed + " (./jrxe sim --quick --seed " + seed + " --shrink, or"
                    + " -Djrxe.sim.seed=" + seed + "): " + r.failure());
            }
        }
        assertThat(failures).as("%d seeds, %d datagrams, %d faults", count, datagrams, faults).isEmpty();
        if (one == null) {
            // the seeds reach what they are there for
            assertThat(faults).as("faults the network applied over the seeds").isGreaterThan(count * 10L);
            assertThat(breaks).as("QPs broken and recovered").isPositive();
            for (String c : new String[] {"duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
                "rcvd_seq_err", "completer_retry_err", "retry_exceeded_err", "rdma_recvs"}) {
                assertThat(counters.get(c)).as(c).isPositive();
            }
        }
    }
}
