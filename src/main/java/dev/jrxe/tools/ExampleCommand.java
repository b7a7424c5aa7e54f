package dev.jrxe.tools;

import dev.jrxe.Configuration;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe example NAME [args]}: runs one of the programs under {@code examples/} from its
 * source (Java's source launcher) in a new JVM, with jrxe on the class path; {@code --list} names
 * them. The examples use the exported API only (ExamplesTest compiles them as a module).
 */
@Command(name = "example", mixinStandardHelpOptions = true,
    description = {"Runs an example program from examples/ (its own JVM, from source).",
        "Everything after NAME goes to the example: 'jrxe example kv-store --help'."})
public final class ExampleCommand implements Callable<Integer> {
    /** An example: its name on the command line, its main source file under examples/, what it shows. */
    public record Entry(String name, String source, String summary) {
    }

    /** Every example, in the order {@code --list} prints them. */
    public static final List<Entry> EXAMPLES = List.of(
        new Entry("kv-store", "kvstore/KvStore.java",
            "key-value store: clients GET by RDMA READ of the server's hash table, PUT by SEND"),
        new Entry("rpc", "rpc/Rpc.java",
            "RPC over SEND/RECV: many clients, the server's QPs on one shared receive queue, latency"),
        new Entry("bulk", "bulk/BulkWrite.java",
            "bulk transfer: RDMA WRITEs + FLUSH + WRITE_WITH_IMM into an implicit-ODP region"));

    @Option(names = "--list", description = "list the examples and exit")
    boolean list;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "the example to run (see --list)")
    String name;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "the example's own arguments")
    List<String> args = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (list || name == null) {
            for (Entry e : EXAMPLES) {
                spec.commandLine().getOut().printf("  %-9s %s%n", e.name(), e.summary());
            }
            spec.commandLine().getOut().flush();
            return name == null && !list ? Main.EXIT_USAGE : 0;
        }
        Entry entry = EXAMPLES.stream().filter(e -> e.name().equals(name)).findFirst()
            .orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
                "no example '" + name + "' (there are: " + String.join(", ", EXAMPLES.stream().map(Entry::name).toList()) + ")"));
        Path dir = examplesDir();
        Path source = dir.resolve(entry.source());
        if (!Files.isRegularFile(source)) {
            throw new IOException("cannot find " + source + " (set -D" + Configuration.EXAMPLES_DIR_PROP
                + "=DIR to the examples directory of a jrxe checkout)");
        }
        Process p = new ProcessBuilder(command(source, args)).inheritIO().start();
        return p.waitFor();
    }

    /** The java command that runs {@code source} from source with jrxe's class path. */
    static List<String> command(Path source, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(source.toString());
        cmd.addAll(args);
        return cmd;
    }

    /** {@code -Djrxe.examples}, else {@code examples/} beside the jar's (or classes') directory, else {@code ./examples}. */
    static Path examplesDir() {
        String set = Configuration.examplesDir();
        if (set != null) {
            return Path.of(set);
        }
        try {
            Path code = Path.of(ExampleCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path beside = code.getParent() == null || code.getParent().getParent() == null ? null
                : code.getParent().getParent().resolve("examples");
            if (beside != null && Files.isDirectory(beside)) {
                return beside;
            }
        } catch (URISyntaxException | RuntimeException e) {
            // no code source (an unusual class loader): fall back to the working directory
        }
        return Path.of("examples");
    }
}
