package dev.jrxe.tools;

import dev.jrxe.tools.RegistrationBenchmark.Row;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The reg-bench chart as a self-contained SVG document: median registration latency (log scale)
 * against region size (log scale), one line per kind. Buckets whose every registration failed
 * have no latency worth drawing and are left out.
 */
final class RegBenchSvg {
    private static final int WIDTH = 760;
    private static final int HEIGHT = 480;
    private static final int LEFT = 80;
    private static final int RIGHT = 150;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final Map<String, String> COLORS = Map.of("pinned", "#d62728", "odp", "#1f77b4",
        "implicit", "#2ca02c");

    private RegBenchSvg() {
    }

    static String render(List<Row> rows, String title) {
        Map<String, List<Row>> byKind = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.runs() > 0 && r.failures() < r.runs() && r.medianNs() > 0) {
                byKind.computeIfAbsent(r.kind(), k -> new ArrayList<>()).add(r);
            }
        }
        long minSize = Long.MAX_VALUE;
        long maxSize = 1;
        long minNs = Long.MAX_VALUE;
        long maxNs = 1;
        for (Row r : rows) {
            minSize = Math.min(minSize, r.sizeBytes());
            maxSize = Math.max(maxSize, r.sizeBytes());
        }
        for (List<Row> list : byKind.values()) {
            for (Row r : list) {
                minNs = Math.min(minNs, r.medianNs());
                maxNs = Math.max(maxNs, r.medianNs());
            }
        }
        if (minSize == Long.MAX_VALUE) {
            minSize = 1;
        }
        if (minNs == Long.MAX_VALUE) {
            minNs = 100;
        }
        double x0 = Math.log10(minSize) - 0.2;
        double x1 = Math.log10(Math.max(maxSize, minSize * 2)) + 0.2;
        int y0 = (int) Math.floor(Math.log10(minNs));
        int y1 = Math.max(y0 + 1, (int) Math.ceil(Math.log10(maxNs)));
        Scale sx = new Scale(x0, x1, LEFT, WIDTH - RIGHT);
        Scale sy = new Scale(y0, y1, HEIGHT - BOTTOM, TOP);

        StringBuilder s = new StringBuilder();
        s.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"15\">%s</text>%n", LEFT,
            escape(title)));
        // horizontal grid: one line per decade of nanoseconds
        for (int d = y0; d <= y1; d++) {
            double y = sy.at(d);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                LEFT, y, WIDTH - RIGHT, y));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                LEFT - 6, y + 4, escape(decade(d))));
        }
        // vertical grid: one line per measured size
        for (Row r : distinctSizes(rows)) {
            double x = sx.at(Math.log10(r.sizeBytes()));
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>%n",
                x, TOP, x, HEIGHT - BOTTOM));
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                x, HEIGHT - BOTTOM + 18, escape(RegBenchSizes.format(r.sizeBytes()))));
        }
        s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            + "stroke=\"#333\"/>%n", LEFT, TOP, WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">region size (log scale)"
            + "</text>%n", (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 16));
        s.append(String.format(Locale.ROOT, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">"
            + "median registration latency (log scale)</text>%n", (TOP + HEIGHT - BOTTOM) / 2));
        int legendY = TOP + 10;
        for (Map.Entry<String, List<Row>> e : byKind.entrySet()) {
            String color = COLORS.getOrDefault(e.getKey(), "#555");
            StringBuilder points = new StringBuilder();
            for (Row r : e.getValue()) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", sx.at(Math.log10(r.sizeBytes())),
                    sy.at(Math.log10(r.medianNs()))));
            }
            s.append(String.format(Locale.ROOT, "<polyline class=\"kind\" data-kind=\"%s\" fill=\"none\" "
                + "stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n", escape(e.getKey()), color,
                points.toString().trim()));
            for (Row r : e.getValue()) {
                s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
                    + "<title>%s %s: median %s</title></circle>%n", sx.at(Math.log10(r.sizeBytes())),
                    sy.at(Math.log10(r.medianNs())), color, escape(r.kind()), RegBenchSizes.format(r.sizeBytes()),
                    escape(RegBenchCommand.duration(r.medianNs()))));
            }
            int lx = WIDTH - RIGHT + 16;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                + "stroke-width=\"2\"/>%n", lx, legendY, lx + 24, legendY, color));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", lx + 30, legendY + 4,
                escape(e.getKey())));
            legendY += 20;
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static List<Row> distinctSizes(List<Row> rows) {
        Map<Long, Row> m = new LinkedHashMap<>();
        for (Row r : rows) {
            m.putIfAbsent(r.sizeBytes(), r);
        }
        return new ArrayList<>(m.values());
    }

    /** Label of 10^d nanoseconds. */
    static String decade(int d) {
        String[] units = {"ns", "µs", "ms", "s"};
        int u = Math.min(Math.max(d, 0) / 3, units.length - 1);
        long v = 1;
        for (int i = 0; i < d - u * 3; i++) {
            v *= 10;
        }
        return v + " " + units[u];
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Linear map from a log10 value range to a pixel range. */
    private record Scale(double from, double to, double px0, double px1) {
        double at(double v) {
            return px0 + (v - from) / (to - from) * (px1 - px0);
        }
    }
}
