package dev.jrxe.module;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles user code the way a user of the library would: as a module that requires dev.jrxe,
 * against target/classes as a module, so only exported packages are visible; then loads it on the
 * class path beside jrxe's classes to run it.
 */
public final class ApiCompiler {
    private ApiCompiler() {
    }

    /**
     * Compiles every .java file under {@code src} (packages as directories, no module-info: this
     * writes one for module {@code module}) into {@code out}, with lint warnings as errors.
     */
    public static URLClassLoader compile(Path src, String module, Path out) throws IOException {
        Files.writeString(src.resolve("module-info.java"), "module " + module + " { requires dev.jrxe; }");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(src)) {
            all.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean ok;
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, null)) {
            ok = javac.getTask(null, fm, diagnostics,
                List.of("--module-path", Path.of("target", "classes").toString(), "-d", out.toString(),
                    "-proc:none", "-Xlint:all", "-Werror"),
                null, fm.getJavaFileObjectsFromPaths(files)).call();
        }
        assertThat(ok).as("%s compiles against jrxe's exported API: %s", module, diagnostics.getDiagnostics()).isTrue();
        return new URLClassLoader(new java.net.URL[] {out.toUri().toURL()}, ApiCompiler.class.getClassLoader());
    }

    /** The java blocks of a Markdown file, in order. */
    public static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        int at = 0;
        while ((at = markdown.indexOf("```java\n", at)) >= 0) {
            int start = at + "```java\n".length();
            int end = markdown.indexOf("```\n", start);
            blocks.add(markdown.substring(start, end));
            at = end;
        }
        return blocks;
    }

    /** The lines of a Markdown file's sh blocks, in order. */
    public static List<String> shellLines(String markdown) {
        List<String> lines = new ArrayList<>();
        int at = 0;
        while ((at = markdown.indexOf("```sh\n", at)) >= 0) {
            int start = at + "```sh\n".length();
            int end = markdown.indexOf("```\n", start);
            markdown.substring(start, end).lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(lines::add);
            at = end;
        }
        return lines;
    }
}
