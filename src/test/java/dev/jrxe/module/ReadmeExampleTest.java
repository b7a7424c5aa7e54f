package dev.jrxe.module;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's API example, exactly as written there: compiled in a module that requires
 * dev.jrxe (so it can only use exported packages), then run as a server and a client that must
 * each print the other's message. It can never drift from the API or hang unnoticed again.
 */
class ReadmeExampleTest {
    private static final AtomicInteger PORTS = new AtomicInteger(31000 + (int) (ProcessHandle.current().pid() % 400) * 10);

    /** The first java block after the "## Using the API" heading. */
    static String example() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("## Using the API");
        assertThat(section).as("README has a '## Using the API' section").isPositive();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        int end = readme.indexOf("```\n", start);
        return readme.substring(start, end);
    }

    @Test
    void shouldCompileAndRunTheReadmeExampleAsWritten(@TempDir Path dir) throws Exception {
        String source = "package readme;\n"
            + "import dev.jrxe.verbs.*;\nimport dev.jrxe.ib.*;\nimport java.io.IOException;\n"
            + "import java.lang.foreign.*;\nimport java.net.InetSocketAddress;\nimport java.time.Duration;\n"
            + "public final class Example {\n" + example() + "\n}\n";
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("readme"));
        Files.writeString(src.resolve("readme").resolve("Example.java"), source);
        try (URLClassLoader loader = ApiCompiler.compile(src, "readme", dir.resolve("out"))) {
            // both sides in this JVM on two addresses
            Class<?> example = loader.loadClass("readme.Example");
            Method exchange = example.getDeclaredMethod("exchange", dev.jrxe.verbs.DeviceConfig.class,
                InetSocketAddress.class, boolean.class);
            exchange.setAccessible(true);
            int port = PORTS.getAndAdd(2);
            InetSocketAddress server = new InetSocketAddress("127.0.0.2", port + 1);
            PrintStream stdout = System.out;
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            java.util.concurrent.ExecutorService two = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                CompletableFuture<Object> s = CompletableFuture.supplyAsync(() -> call(exchange,
                    dev.jrxe.verbs.DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(port), server, true), two);
                CompletableFuture<Object> c = CompletableFuture.supplyAsync(() -> call(exchange,
                    dev.jrxe.verbs.DeviceConfig.of("jrxe1", "127.0.0.3").udpPort(port), server, false), two);
                s.get(30, TimeUnit.SECONDS);
                c.get(30, TimeUnit.SECONDS);
            } finally {
                System.setOut(stdout);
                two.shutdownNow();
            }
            String text = printed.toString(StandardCharsets.UTF_8);
            assertThat(text.lines().filter(l -> l.startsWith("hello from QP ")).count()).as(text).isEqualTo(2);
        }
    }

    private static Object call(Method m, Object... args) {
        try {
            return m.invoke(null, args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e.getCause() != null ? e.getCause() : e);
        }
    }
}
