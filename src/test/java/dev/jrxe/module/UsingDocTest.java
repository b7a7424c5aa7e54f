package dev.jrxe.module;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.tools.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/USING.md stays true: its Java blocks compile together against the exported API (as a
 * module requiring dev.jrxe) and its example runs; every command in its sh blocks runs and exits 0.
 */
class UsingDocTest {
    private static String doc() throws Exception {
        return Files.readString(Path.of("docs", "USING.md"));
    }

    @Test
    void shouldCompileAndRunTheJavaBlocks(@TempDir Path dir) throws Exception {
        List<String> blocks = ApiCompiler.javaBlocks(doc());
        assertThat(blocks).isNotEmpty();
        String source = "package using;\n"
            + "import dev.jrxe.verbs.*;\nimport dev.jrxe.ib.*;\n"
            + "import java.lang.foreign.*;\nimport java.util.concurrent.TimeUnit;\n"
            + "public final class Using {\n" + String.join("\n", blocks) + "\n}\n";
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("using"));
        Files.writeString(src.resolve("using").resolve("Using.java"), source);
        try (URLClassLoader loader = ApiCompiler.compile(src, "using", dir.resolve("out"))) {
            Method m = loader.loadClass("using.Using").getDeclaredMethod("writeThenSend", String.class, String.class, int.class);
            m.setAccessible(true);
            PrintStream stdout = System.out;
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            try {
                m.invoke(null, "127.0.0.2", "127.0.0.3", 34000 + (int) (ProcessHandle.current().pid() % 1000));
            } finally {
                System.setOut(stdout);
            }
            assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("written, then sent\n");
        }
    }

    @Test
    void shouldRunEveryCommand() throws Exception {
        List<String> commands = ApiCompiler.shellLines(doc());
        assertThat(commands).isNotEmpty();
        for (String line : commands) {
            assertThat(line).as("a jrxe command").startsWith("./jrxe ");
            String[] args = line.substring("./jrxe ".length()).split(" +");
            StringWriter out = new StringWriter();
            PrintStream stdout = System.out;
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            int exit;
            try {
                picocli.CommandLine cl = Main.commandLine();
                cl.setOut(new PrintWriter(out, true));
                cl.setErr(new PrintWriter(out, true));
                exit = Main.execute(cl, args);
            } finally {
                System.setOut(stdout);
            }
            String text = out + printed.toString(StandardCharsets.UTF_8);
            assertThat(exit).as("%s printed:%n%s", line, text).isZero();
            assertThat(text).as(line).isNotBlank();
        }
    }
}
