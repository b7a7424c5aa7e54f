package dev.jrxe.module;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The javadoc build documents exactly the exported packages: it runs on the class path (the
 * javadoc plugin cannot read a release-25 module descriptor on Maven's JDK 17), so pom.xml names
 * the packages it leaves out, and they must be the ones module-info does not export.
 */
class JavadocConfigTest {
    @Test
    void shouldLeaveOutExactlyThePackagesTheModuleDoesNotExport() throws IOException {
        ModuleDescriptor d = ModuleFinder.of(Path.of("target", "classes")).find("dev.jrxe").orElseThrow().descriptor();
        Set<String> exported = d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        Set<String> internal = new TreeSet<>(d.packages());
        internal.removeAll(exported);
        String pom = Files.readString(Path.of("pom.xml"));
        String tag = "<excludePackageNames>";
        int at = pom.indexOf(tag);
        assertThat(at).as("pom.xml configures the javadoc plugin's excludePackageNames").isPositive();
        String list = pom.substring(at + tag.length(), pom.indexOf("</excludePackageNames>", at));
        assertThat(new TreeSet<>(Arrays.asList(list.split(":")))).isEqualTo(internal);
        assertThat(pom).contains("<doclint>all</doclint>", "<failOnWarnings>true</failOnWarnings>");
    }
}
