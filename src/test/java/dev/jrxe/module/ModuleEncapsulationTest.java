package dev.jrxe.module;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The module {@code dev.jrxe} exports its API packages and nothing else: another module compiles
 * against {@code verbs}, {@code ib} and {@code cm}, and is refused every internal package, by the
 * compiler and by the module system at run time.
 */
class ModuleEncapsulationTest {
    private static final Path CLASSES = Path.of("target", "classes");
    private static final Set<String> API = Set.of("dev.jrxe.verbs", "dev.jrxe.ib", "dev.jrxe.cm");
    private static final List<String> INTERNAL = List.of("dev.jrxe.transport", "dev.jrxe.memory", "dev.jrxe.net",
        "dev.jrxe.wire", "dev.jrxe.sys", "dev.jrxe.sim", "dev.jrxe.tools", "dev.jrxe.internal");

    @Test
    void shouldExportTheApiPackagesOnly() {
        ModuleDescriptor d = ModuleFinder.of(CLASSES).find("dev.jrxe").orElseThrow().descriptor();
        Set<String> exported = d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertThat(exported).isEqualTo(API);
        assertThat(d.packages()).containsAll(INTERNAL);
        assertThat(d.opens()).allSatisfy(o -> assertThat(o.targets()).isNotEmpty());
    }

    @Test
    void shouldRefuseAnInternalPackageToAModuleAtRunTime() {
        // resolve dev.jrxe as a named module in a layer of its own, as an application's launcher would
        Configuration cf = ModuleLayer.boot().configuration().resolve(ModuleFinder.of(CLASSES), ModuleFinder.of(),
            Set.of("dev.jrxe"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getSystemClassLoader());
        Module jrxe = layer.findModule("dev.jrxe").orElseThrow();
        Module app = ModuleEncapsulationTest.class.getModule();
        for (String p : API) {
            assertThat(jrxe.isExported(p, app)).as(p).isTrue();
        }
        for (String p : INTERNAL) {
            assertThat(jrxe.isExported(p, app)).as(p).isFalse();
            assertThat(jrxe.isOpen(p, app)).as(p).isFalse();
        }
    }

    @Test
    void shouldCompileAModuleThatUsesTheApiAndRefuseOneThatImportsAnInternalPackage(@TempDir Path dir) throws IOException {
        assertThat(compile(dir.resolve("ok"), "import dev.jrxe.verbs.Device; import dev.jrxe.ib.Access;"
            + " import dev.jrxe.ib.Errno; import dev.jrxe.cm.RdmaServer;",
            "Device d = null; int a = Access.LOCAL_WRITE + Errno.EBUSY; RdmaServer s = null;")).isEmpty();
        for (String p : List.of("dev.jrxe.transport.Engine", "dev.jrxe.memory.KeyTable", "dev.jrxe.internal.Internals")) {
            List<String> errors = compile(dir.resolve(p), "import " + p + ";", "");
            assertThat(errors).as(p).anySatisfy(e -> assertThat(e).contains("is not visible"));
        }
    }

    /** Compiles module {@code app} against target/classes as module dev.jrxe; returns the errors. */
    private static List<String> compile(Path dir, String imports, String body) throws IOException {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("app"));
        Files.writeString(src.resolve("module-info.java"), "module app { requires dev.jrxe; }");
        Files.writeString(src.resolve("app").resolve("Main.java"),
            "package app; " + imports + " public class Main { void f() { " + body + " } }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, null)) {
            Iterable<? extends JavaFileObject> units = fm.getJavaFileObjects(src.resolve("module-info.java"),
                src.resolve("app").resolve("Main.java"));
            List<String> options = List.of("--module-path", CLASSES.toString(), "-d", dir.resolve("out").toString(),
                "-proc:none");
            javac.getTask(null, fm, diagnostics, options, null, units).call();
        }
        return diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
            .map(d -> d.getMessage(null)).toList();
    }
}
