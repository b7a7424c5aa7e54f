package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.tools.RegistrationBenchmark;
import dev.jrxe.tools.RegistrationBenchmark.Row;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

class RegBenchCommandTest {
    private static final Pattern GBPS = Pattern.compile("  (pinned|implicit) +median (\\d+\\.\\d+) GB/s.*");

    @TempDir
    Path dir;

    /** Output of one in-process run. */
    record Result(int exit, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("reg-bench"));
        all.addAll(List.of(args));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Result(exit, out.toString(), err.toString());
    }

    @Test
    void shouldDefaultToTheRfcMethod() {
        RegBenchCommand cmd = new RegBenchCommand();
        new CommandLine(cmd).parseArgs();
        assertThat(cmd.sizes).containsExactly(4096L, 65536L, 1L << 20, 16L << 20, 64L << 20, 256L << 20, 1L << 30);
        assertThat(cmd.runs).isEqualTo(30);
        assertThat(cmd.seed).isEqualTo(42);
        assertThat(cmd.kinds).containsExactly("pinned", "odp", "implicit");
        assertThat(cmd.udpPort).as("never the RoCEv2 port by default").isNotEqualTo(4791);
    }

    @Test
    void shouldWriteOneCsvRowPerKindAndSizeAndAWellFormedSvg() throws Exception {
        Path csv = dir.resolve("reg.csv");
        Path svg = dir.resolve("reg.svg");
        Result r = run("--sizes", "4K,64K", "--runs", "3", "--jit-warmup", "10", "--no-traffic", "--csv",
            csv.toString(), "--svg", svg.toString());
        assertThat(r.exit()).as(r.err()).isZero();

        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertThat(lines.getFirst()).isEqualTo(
            "kind,size_bytes,runs,median_ns,p95_ns,p99_ns,min_ns,max_ns,failures,errno,rss_before_kib,rss_during_kib");
        assertThat(lines).hasSize(1 + 3 * 2);
        List<String> keys = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            assertThat(f).hasSize(12);
            keys.add(f[0] + "/" + f[1]);
            assertThat(Integer.parseInt(f[2])).isEqualTo(3);
            long median = Long.parseLong(f[3]);
            assertThat(Long.parseLong(f[6])).isPositive().isLessThanOrEqualTo(median);
            assertThat(Long.parseLong(f[7])).isGreaterThanOrEqualTo(median);
            assertThat(f[8]).isEqualTo("0");
        }
        assertThat(keys).containsExactly("pinned/4096", "pinned/65536", "odp/4096", "odp/65536", "implicit/4096",
            "implicit/65536");

        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        NodeList lines2 = doc.getElementsByTagName("polyline");
        List<String> drawn = new ArrayList<>();
        for (int i = 0; i < lines2.getLength(); i++) {
            Element e = (Element) lines2.item(i);
            drawn.add(e.getAttribute("data-kind"));
            assertThat(e.getAttribute("points").trim().split(" ")).as("one point per size").hasSize(2);
        }
        assertThat(drawn).containsExactly("pinned", "odp", "implicit");

        assertThat(r.out()).contains("Registration latency", "implicit: largest median");
        assertThat(r.out().lines().filter(l -> l.matches("(pinned|odp|implicit) +(4K|64K) .*"))).hasSize(6);
        assertThat(r.err()).as("progress on stderr").contains("reg-bench: ");
        assertThat(r.out()).doesNotContain("registrations\n");
    }

    @Test
    void shouldMeasureFirstTouchPerChildAndWriteBandwidth() {
        Result r = run("--sizes", "4K", "--runs", "2", "--jit-warmup", "10", "--kinds", "implicit", "--touch-chunks",
            "4", "--bw-seconds", "0.2", "--bw-rounds", "1", "--bw-window", "1M", "--bw-depth", "4");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).as("every cold WRITE created one 2 MiB child").contains("children created: 4");
        assertThat(r.out()).contains("cold WRITE  median", "warm WRITE  median", "implicit / pinned = ",
            "the page fault alone", "responder memory path per 4096 B packet");
        List<Double> gbps = new ArrayList<>();
        for (String line : r.out().lines().toList()) {
            Matcher m = GBPS.matcher(line);
            if (m.matches()) {
                gbps.add(Double.parseDouble(m.group(2)));
            }
        }
        assertThat(gbps).hasSize(2).allSatisfy(v -> assertThat(v).isPositive());
    }

    @Test
    void shouldRejectUnknownKindsAndBadSizes() {
        Result kind = run("--kinds", "pinned,mystery", "--no-traffic");
        assertThat(kind.exit()).isEqualTo(2);
        assertThat(kind.err()).contains("unknown kind 'mystery'");
        Result size = run("--sizes", "4Q");
        assertThat(size.exit()).isEqualTo(2);
        assertThat(size.err()).contains("not a size");
    }

    @Test
    void shouldParseAndPrintSizesInPowersOf1024() {
        assertThat(RegBenchSizes.parse("4K")).isEqualTo(4096);
        assertThat(RegBenchSizes.parse("64KiB")).isEqualTo(65536);
        assertThat(RegBenchSizes.parse("1g")).isEqualTo(1L << 30);
        assertThat(RegBenchSizes.parse("1000")).isEqualTo(1000);
        assertThatThrownBy(() -> RegBenchSizes.parse("0K")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RegBenchSizes.parse("-4K")).isInstanceOf(IllegalArgumentException.class);
        for (long size : RegistrationBenchmark.DEFAULT_SIZES) {
            assertThat(RegBenchSizes.parse(RegBenchSizes.format(size))).isEqualTo(size);
        }
        assertThat(RegBenchSizes.format(256L << 20)).isEqualTo("256M");
        assertThat(RegBenchSizes.format(1000)).isEqualTo("1000");
    }

    @Test
    void shouldLeaveBucketsThatOnlyFailedOutOfTheChart() throws Exception {
        List<Row> rows = List.of(new Row("pinned", 4096, 3, 50_000, 60_000, 60_000, 40_000, 60_000, 3, 12, 1, 1),
            new Row("implicit", 4096, 3, 2_000, 3_000, 3_000, 1_000, 3_000, 0, 0, 1, 1),
            new Row("implicit", 1 << 20, 3, 2_500, 3_000, 3_000, 1_000, 3_000, 0, 0, 1, 1));
        String svg = RegBenchSvg.render(rows, "a <test> & more");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        NodeList lines = doc.getElementsByTagName("polyline");
        assertThat(lines.getLength()).isEqualTo(1);
        assertThat(((Element) lines.item(0)).getAttribute("data-kind")).isEqualTo("implicit");
        assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(2);
    }

    @Test
    void shouldPrintDurationsWithUnits() {
        assertThat(RegBenchCommand.duration(850)).isEqualTo("850 ns");
        assertThat(RegBenchCommand.duration(1_234)).isEqualTo("1.23 us");
        assertThat(RegBenchCommand.duration(310_500)).isEqualTo("310.5 us");
        assertThat(RegBenchCommand.duration(12_300_000)).isEqualTo("12.30 ms");
        assertThat(RegBenchCommand.duration(-1_500)).isEqualTo("-1.50 us");
    }
}
