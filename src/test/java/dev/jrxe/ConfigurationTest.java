package dev.jrxe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Configuration holds every property: no source names a jrxe.* property that it does not declare. */
class ConfigurationTest {
    private static final Pattern PROPERTY = Pattern.compile("\"(jrxe\\.[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9])\"");

    @Test
    void shouldDeclareEveryPropertyTheSourcesRead() throws IOException, IllegalAccessException {
        Set<String> declared = new TreeSet<>();
        for (Field f : Configuration.class.getFields()) {
            if (f.getName().endsWith("_PROP") && Modifier.isStatic(f.getModifiers())) {
                declared.add((String) f.get(null));
            }
        }
        assertThat(declared).contains("jrxe.port", "jrxe.trace", "jrxe.traceErrors", "jrxe.dumpCounters");
        Set<String> named = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            for (Path p : files.filter(x -> x.toString().endsWith(".java")).toList()) {
                Matcher m = PROPERTY.matcher(Files.readString(p));
                while (m.find()) {
                    named.add(m.group(1));
                }
            }
        }
        assertThat(named).as("property names in the sources").isNotEmpty();
        assertThat(declared).as("Configuration's *_PROP values").containsAll(named);
    }
}
