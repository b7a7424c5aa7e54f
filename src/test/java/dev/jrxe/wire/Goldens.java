package dev.jrxe.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Test-only access to the rxe captures and the tshark golden field files made from them. */
final class Goldens {
    private Goldens() {
    }

    /**
     * The real rxe captures (copies of ../shared/captures, so that a clone tests alone), and the
     * oracle's good, corrupt and edge-case packets (copies from ../shared/oracle).
     */
    static final Path CAPTURES = Path.of("src", "test", "resources", "captures");
    static final Path ORACLE = Path.of("src", "test", "resources", "oracle");
    private static final Path GOLDENS = Path.of("src", "test", "resources", "goldens");

    static List<Path> captures() {
        try (Stream<Path> s = Files.list(CAPTURES)) {
            return s.filter(p -> p.toString().endsWith(".pcap")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String name(Path capture) {
        String n = capture.getFileName().toString();
        return n.substring(0, n.length() - ".pcap".length());
    }

    /** tshark fields by frame number, each row a map from field name to text ("" when absent). */
    static Map<Integer, Map<String, String>> fields(String captureName) throws IOException {
        List<String> lines = Files.readAllLines(GOLDENS.resolve(captureName + ".tsv"));
        String[] header = lines.get(0).split("\t", -1);
        Map<Integer, Map<String, String>> rows = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split("\t", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], cells[i]);
            }
            rows.put(Integer.parseInt(cells[0]), row);
        }
        return rows;
    }
}
