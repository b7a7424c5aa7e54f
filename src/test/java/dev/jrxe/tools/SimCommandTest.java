package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code jrxe sim}: one seed prints its digest last, the same in every JVM; many print a summary. */
class SimCommandTest {
    private record Run(int rc, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new SimCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void shouldPrintTheSameDigestInEveryJvm() throws Exception {
        String[] digests = new String[2];
        for (int i = 0; i < 2; i++) {
            try (ToolProcess p = ToolProcess.start("sim", "--quick", "--seed", "5")) {
                assertThat(p.await(120, TimeUnit.SECONDS)).as(p.output()).isZero();
                List<String> lines = p.lines();
                assertThat(lines.get(0)).isEqualTo("seed 5: passed");
                digests[i] = lines.get(lines.size() - 1);
            }
        }
        assertThat(digests[0]).matches("digest [0-9a-f]{64}");
        assertThat(digests[1]).isEqualTo(digests[0]);
        Run here = run("--quick", "--seed", "5");
        assertThat(here.out().strip().lines().reduce((a, b) -> b).orElseThrow()).isEqualTo(digests[0]);
    }

    @Test
    void shouldSummariseManySeeds() {
        Run r = run("--quick", "--seeds", "5", "--from", "100");
        assertThat(r.rc()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("5 seeds (100..104): 5 passed, 0 failed");
        assertThat(r.err()).contains("sim: 5/5 seeds, 0 failed");
    }

    @Test
    void shouldRejectSeedCountsAndOperationCountsBelowOne() {
        Run r = run("--seeds", "0");
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).contains("'--seeds': 0 is not 1 or more");
        r = run("--ops", "0", "--seed", "1");
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).contains("'--ops': 0 is not 1 or more");
    }
}
