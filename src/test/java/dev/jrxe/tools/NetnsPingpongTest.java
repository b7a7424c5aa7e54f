package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs scripts/netns-pingpong.sh: {@code rc-pingpong -g 1 -O} (implicit ODP) and {@code srd-pingpong -c}
 * (SRD) between two network namespaces joined by a veth pair (10.77.0.1 and 10.77.0.2, inside those namespaces only). jrxe is started
 * from the test class path through JRXE_CMD, since the jar is built after the tests. Fails when
 * iproute2 is missing (CI installs it); skipped only when not root.
 */
class NetnsPingpongTest {
    private static final NetnsScript SCRIPT = new NetnsScript("netns-pingpong.sh", 300);

    @BeforeAll
    static void requireIpAndRoot() throws IOException {
        NetnsScript.require("ip");
    }

    @Test
    void shouldPingPongWithImplicitOdpBetweenTwoNamespaces() throws Exception {
        NetnsScript.Result r = SCRIPT.run("rc-pingpong", "-g", "1", "-O", "-n", "200");
        assertThat(r.exit()).as(r.output()).isZero();
        for (String side : List.of("server", "client")) {
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 200 iters in \\S+ seconds = \\S+ usec/iter")))
                .as(r.output()).hasSize(1);
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 1638400 bytes in \\S+ seconds = \\S+ Mbit/sec")))
                .as(r.output()).hasSize(1);
        }
        assertThat(r.output()).contains("server:   local address:  LID 0x0000", "GID ::ffff:10.77.0.1",
            "GID ::ffff:10.77.0.2");
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-pingpong"));
    }

    @Test
    void shouldPingPongOverSrdBetweenTwoNamespaces() throws Exception {
        NetnsScript.Result r = SCRIPT.run("srd-pingpong", "-c", "-n", "200");
        assertThat(r.exit()).as(r.output()).isZero();
        for (String side : List.of("server", "client")) {
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 200 iters in \\S+ seconds = \\S+ usec/iter")))
                .as(r.output()).hasSize(1);
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 409600 bytes in \\S+ seconds = \\S+ Mbit/sec")))
                .as(r.output()).hasSize(1);
        }
        assertThat(r.output()).contains("GID ::ffff:10.77.0.1", "GID ::ffff:10.77.0.2").doesNotContain("invalid data");
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-pingpong"));
    }

    @Test
    void shouldFailAndStillRemoveTheNamespacesWhenASideFails() throws Exception {
        NetnsScript.Result r = SCRIPT.run("rc-pingpong", "-g", "1", "-O", "-m", "1000"); // not an MTU: both sides print usage and exit 1
        assertThat(r.exit()).as(r.output()).isNotZero();
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-pingpong"));
    }
}
