package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs scripts/netns-rping.sh: rping server and client (-V, 1,000 iterations) in two network
 * namespaces joined by a veth pair (10.78.0.1 and 10.78.0.2, inside those namespaces only).
 * Fails when iproute2 is missing (CI installs it); skipped only when not root.
 */
class NetnsRpingTest {
    private static final NetnsScript SCRIPT = new NetnsScript("netns-rping.sh", 300);

    @BeforeAll
    static void requireIpAndRoot() throws IOException {
        NetnsScript.require("ip");
    }

    @Test
    void shouldPingThroughTheCmBetweenTwoNamespaces() throws Exception {
        NetnsScript.Result r = SCRIPT.run("-C", "1000");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("client: client DISCONNECT EVENT...", "server: server DISCONNECT EVENT...",
            "netns-rping: passed").doesNotContain("mismatch");
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-rping"));
    }
}
