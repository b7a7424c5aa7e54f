package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs scripts/netns-chaos.sh: an RC stream between two network namespaces, clean and then with the
 * kernel (nftables, HTB) dropping, duplicating, reordering and corrupting datagrams both ways. Every
 * message must arrive once, in order, intact; the faults must really have happened. Fails when ip, tc
 * or nft is missing (CI installs them); skipped only when not root.
 */
class NetnsChaosTest {
    private static final NetnsScript SCRIPT = new NetnsScript("netns-chaos.sh", 600);
    private static final Pattern KERNEL = Pattern.compile("kernel \\((send|recv) side sends\\): (\\w+) (\\d+) datagrams");

    @BeforeAll
    static void requireToolsAndRoot() throws IOException {
        NetnsScript.require("ip", "tc", "nft");
    }

    @Test
    void shouldDeliverAStreamIntactThroughLossDuplicationReorderingAndCorruption() throws Exception {
        // heavier than the default, so that 30,000 messages meet every fault many times
        NetnsScript.Result r = SCRIPT.run("-n", "30000", "--loss", "50", "--dup", "20", "--reorder", "20",
            "--corrupt", "5");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output().lines().filter(l -> l.contains("receiver: 30000 messages: 30000 received, 0 lost, "
            + "0 duplicated, 0 out of order, 0 corrupted"))).as(r.output()).hasSize(2);
        Matcher m = KERNEL.matcher(r.output());
        int counted = 0;
        while (m.find()) {
            assertThat(Long.parseLong(m.group(3))).as("%s side %s: %s", m.group(1), m.group(2), r.output()).isPositive();
            counted++;
        }
        assertThat(counted).as("four faults both ways: %s", r.output()).isEqualTo(8);
        assertThat(r.output()).containsPattern("sender: .*completer_retry_err=[1-9]");
        assertThat(r.output()).containsPattern("receiver: .*drop_bad_icrc=[1-9]");
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-chaos"));
    }

    @Test
    void shouldRemoveItsNamespacesWhenTheStreamFails() throws Exception {
        NetnsScript.Result r = SCRIPT.run("-s", "4", "--clean-only"); // not a size: both sides exit 2
        assertThat(r.exit()).as(r.output()).isNotZero();
        NetnsScript.assertNamespacesRemoved(r.namespaces("netns-chaos"));
    }
}
