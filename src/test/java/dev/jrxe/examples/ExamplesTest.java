package dev.jrxe.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.module.ApiCompiler;
import dev.jrxe.tools.ChildJvm;
import dev.jrxe.tools.ExampleCommand;
import dev.jrxe.tools.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The programs under examples/: compiled as a module that requires dev.jrxe (so they can only use
 * the exported API), then each demo run as written, every party in this JVM on its own device,
 * and its checks must pass; and {@code jrxe example} finds and starts them.
 */
class ExamplesTest {
    private static final AtomicInteger PORTS = new AtomicInteger(33000 + (int) (ProcessHandle.current().pid() % 400) * 10);
    private static final Path EXAMPLES = Path.of("examples");

    @TempDir
    static Path dir;
    private static URLClassLoader loader;

    @BeforeAll
    static void compile() throws IOException {
        Path src = dir.resolve("src");
        try (Stream<Path> all = Files.walk(EXAMPLES)) {
            for (Path p : all.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path copy = src.resolve(EXAMPLES.relativize(p).toString());
                Files.createDirectories(copy.getParent());
                Files.copy(p, copy);
            }
        }
        loader = ApiCompiler.compile(src, "examples", dir.resolve("out"));
    }

    /** Runs {@code cls.run(args, out)}; returns what it printed, after checking its exit code. */
    private static String run(String cls, int expectedExit, String... args) throws Exception {
        Method run = loader.loadClass(cls).getMethod("run", String[].class, PrintStream.class);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit = (int) run.invoke(null, args, new PrintStream(printed, true, StandardCharsets.UTF_8));
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isEqualTo(expectedExit);
        return text;
    }

    private static String[] ports(String... args) {
        int p = PORTS.getAndAdd(2);
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--udp-port", String.valueOf(p), "--port", String.valueOf(p + 1)));
        return all.toArray(String[]::new);
    }

    @Test
    void shouldGetEveryValueOfTwoClientsByRdmaRead() throws Exception {
        String out = run("kvstore.KvStore", 0, ports("--keys", "150"));
        assertThat(out).contains("kv-client 1: 165 PUTs by SEND, 151 GETs by", "kv-client 2: 165 PUTs by SEND",
            "every value correct", "kv-server: served 330 PUTs", "kv-store: all values correct");
        assertThat(out).doesNotContain("WRONG");
    }

    @Test
    void shouldAnswerEveryCallOfThreeClientsFromOneSharedReceiveQueue() throws Exception {
        String out = run("rpc.Rpc", 0, ports("--calls", "300", "--size", "100"));
        assertThat(out.lines().filter(l -> l.startsWith("rpc-client ") && l.contains("300 calls of 100 B, every answer correct")
            && l.contains("latency p50 ")).count()).as(out).isEqualTo(3);
        assertThat(out).contains("one SRQ of 64 receives", "rpc-server: answered 900 calls", "rpc: every answer correct");
    }

    @Test
    void shouldMoveEveryTransferIntactIntoAnImplicitOdpRegion() throws Exception {
        String out = run("bulk.BulkWrite", 0, ports("--size", "4", "--transfers", "2", "--chunk", "256"));
        assertThat(out).contains("bulk-receiver: transfer 1: 4 MiB", "bulk-receiver: transfer 2: 8 MiB", "matches",
            "bulk-sender: transfer 2: 8 MiB in 256 KiB WRITEs", "no buffer registered", "bulk: every transfer arrived intact");
        assertThat(out).doesNotContain("DIFFERS");
    }

    @Test
    void shouldSayHowToUseEachExample() throws Exception {
        assertThat(run("kvstore.KvStore", 0, "--help")).startsWith("Usage: ./jrxe example kv-store");
        assertThat(run("rpc.Rpc", 0, "--help")).startsWith("Usage: ./jrxe example rpc");
        assertThat(run("bulk.BulkWrite", 0, "--help")).startsWith("Usage: ./jrxe example bulk");
        assertThat(run("rpc.Rpc", 2, "sideways")).contains("unknown role 'sideways'", "Usage:");
        assertThat(run("bulk.BulkWrite", 2, "--depth", "0")).contains("--depth 1..64");
        assertThat(run("kvstore.KvStore", 2, "--keys", "many")).contains("--keys wants a number");
    }

    @Test
    void shouldListEveryExampleDirectoryAndNothingElse() throws IOException {
        List<String> dirs;
        try (Stream<Path> d = Files.list(EXAMPLES)) {
            dirs = d.filter(Files::isDirectory).map(p -> p.getFileName().toString()).filter(n -> !n.equals("common")).sorted().toList();
        }
        assertThat(ExampleCommand.EXAMPLES.stream().map(e -> e.source().substring(0, e.source().indexOf('/'))).sorted().toList())
            .isEqualTo(dirs);
        for (ExampleCommand.Entry e : ExampleCommand.EXAMPLES) {
            assertThat(EXAMPLES.resolve(e.source())).isRegularFile();
        }
        String readme = Files.readString(EXAMPLES.resolve("README.md"));
        for (ExampleCommand.Entry e : ExampleCommand.EXAMPLES) {
            assertThat(readme).as("examples/README.md tells of %s", e.name()).contains("./jrxe example " + e.name());
        }
    }

    @Test
    void shouldListRefuseAnUnknownNameAndStartAnExampleFromItsSource() throws Exception {
        var out = new java.io.StringWriter();
        var err = new java.io.StringWriter();
        picocli.CommandLine cl = Main.commandLine();
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        assertThat(Main.execute(cl, "example", "--list")).isZero();
        assertThat(out.toString()).contains("kv-store", "rpc", "bulk");
        assertThat(Main.execute(cl, "example", "nosuch")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("no example 'nosuch'");
        // the way ./jrxe runs one: a new JVM, the source launcher, jrxe on the class path
        try (ChildJvm child = ChildJvm.start(List.of(), List.of("example", "rpc", "--help"), true)) {
            StringBuilder text = new StringBuilder();
            for (String line; (line = child.readLine()) != null; ) {
                text.append(line).append('\n');
            }
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as(text.toString()).isZero();
            assertThat(text.toString()).startsWith("Usage: ./jrxe example rpc");
        }
    }
}
