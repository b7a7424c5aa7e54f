package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * scripts/bench-host.sh: what on the host moves the latency figures (docs/BENCHMARKS.md). The
 * offload checks run the script in a network namespace of their own ({@code unshare -n}), so the
 * host's lo is never touched.
 */
class BenchHostScriptTest {
    private static final Path SCRIPT = Path.of(System.getProperty("basedir", "."), "scripts", "bench-host.sh");

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("script ended").isTrue();
        assertThat(p.exitValue()).as("exit status, output:\n%s", out).isZero();
        return out;
    }

    /** The script in a fresh namespace whose lo has UDP segmentation offload {@code state}. */
    private static String inNamespaceWithOffload(String state) throws IOException, InterruptedException {
        NetnsScript.require("unshare", "ip", "ethtool");
        return run("unshare", "-n", "bash", "-c",
            "ip link set lo up && ethtool -K lo tx-udp-segmentation " + state + " && bash " + SCRIPT);
    }

    @Test
    void shouldPrintTheHostsFacts() throws Exception {
        String out = run("bash", SCRIPT.toString());
        assertThat(out).contains("cpus: " + Runtime.getRuntime().availableProcessors())
            .contains("lo tx-udp-segmentation: ").contains("PCID: ");
    }

    @Test
    void shouldWarnWhenLoCutsGsoTrainsInSoftware() throws Exception {
        String out = inNamespaceWithOffload("off");
        assertThat(out).contains("lo tx-udp-segmentation: off").contains("WARNING")
            .contains("ethtool -K lo tx-udp-segmentation on");
    }

    @Test
    void shouldNotWarnWhenTheOffloadIsOn() throws Exception {
        List<String> lines = inNamespaceWithOffload("on").lines().toList();
        assertThat(lines).contains("lo tx-udp-segmentation: on").noneMatch(l -> l.contains("WARNING"));
    }
}
