package dev.jrxe.tools;

import java.util.List;
import java.util.Locale;

/**
 * perftest rows as CSV and as an SVG chart against message size (log 2 axis): bandwidth (BW
 * tests, with the link's UDP ceiling measured in the same run as a dashed reference line) or
 * latency (typical and 99th percentile).
 */
final class PerftestPlot {
    /** One size's result: BW tests fill the bandwidth fields, latency tests the latency ones. */
    record Point(long size, long iters, double bwPeak, double bwAvg, double msgRate, PerftestOutput.Latency lat) {
    }

    private static final int WIDTH = 760;
    private static final int HEIGHT = 480;
    private static final int LEFT = 80;
    private static final int RIGHT = 170;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;

    private PerftestPlot() {
    }

    static String csv(PerftestTest test, List<Point> points, String unit, double ceiling) {
        StringBuilder s = new StringBuilder();
        if (test.bw) {
            s.append("bytes,iterations,bw_peak_").append(unit).append(",bw_avg_").append(unit)
                .append(",msg_rate_mpps,udp_ceiling_").append(unit).append('\n');
            for (Point p : points) {
                s.append(String.format(Locale.ROOT, "%d,%d,%.2f,%.2f,%.6f,%.2f%n", p.size(), p.iters(), p.bwPeak(),
                    p.bwAvg(), p.msgRate(), ceiling));
            }
        } else {
            s.append("bytes,iterations,t_min_usec,t_max_usec,t_typical_usec,t_avg_usec,t_stdev_usec,p99_usec,p999_usec\n");
            for (Point p : points) {
                PerftestOutput.Latency l = p.lat();
                s.append(String.format(Locale.ROOT, "%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f%n", p.size(), p.iters(),
                    l.min(), l.max(), l.typical(), l.avg(), l.stdev(), l.p99(), l.p999()));
            }
        }
        return s.toString();
    }

    static String svg(PerftestTest test, List<Point> points, String unit, double ceiling, String title) {
        double minX = Math.log(points.get(0).size()) / Math.log(2);
        double maxX = Math.max(minX + 1, Math.log(points.get(points.size() - 1).size()) / Math.log(2));
        double maxY = 0;
        for (Point p : points) {
            maxY = Math.max(maxY, test.bw ? p.bwAvg() : p.lat().p99());
        }
        if (test.bw) {
            maxY = Math.max(maxY, ceiling);
        }
        maxY = maxY <= 0 ? 1 : maxY * 1.1;
        int w = WIDTH - LEFT - RIGHT;
        int h = HEIGHT - TOP - BOTTOM;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH, HEIGHT));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"24\" font-size=\"15\">%s</text>%n", LEFT, escape(title)));
        s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>%n",
            LEFT, TOP, w, h));
        for (Point p : points) {
            double x = LEFT + (Math.log(p.size()) / Math.log(2) - minX) / (maxX - minX) * w;
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">%s</text>%n",
                x, TOP + h + 16, label(p.size())));
        }
        for (int i = 0; i <= 5; i++) {
            double v = maxY * i / 5;
            double y = TOP + h - v / maxY * h;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>%n",
                LEFT, y, LEFT + w, y));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>%n", LEFT - 6, y + 4, v));
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (bytes)</text>%n",
            LEFT + w / 2, HEIGHT - 16));
        s.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">%s</text>%n",
            TOP + h / 2, TOP + h / 2, test.bw ? "bandwidth (" + unit + ")" : "latency (usec)"));
        if (test.bw) {
            line(s, points, p -> p.bwAvg(), minX, maxX, maxY, w, h, "#1f77b4", "BW average", 0);
            if (ceiling > 0) {
                double y = TOP + h - ceiling / maxY * h;
                s.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"6,4\"/>%n",
                    LEFT, y, LEFT + w, y));
                legend(s, "#d62728", "UDP ceiling (GSO)", 1, true);
            }
        } else {
            line(s, points, p -> p.lat().typical(), minX, maxX, maxY, w, h, "#1f77b4", "t_typical", 0);
            line(s, points, p -> p.lat().p99(), minX, maxX, maxY, w, h, "#ff7f0e", "99%", 1);
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static void line(StringBuilder s, List<Point> points, java.util.function.ToDoubleFunction<Point> y,
                             double minX, double maxX, double maxY, int w, int h, String color, String name, int row) {
        StringBuilder pts = new StringBuilder();
        for (Point p : points) {
            double x = LEFT + (Math.log(p.size()) / Math.log(2) - minX) / (maxX - minX) * w;
            double yy = TOP + h - y.applyAsDouble(p) / maxY * h;
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, yy));
        }
        s.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
            color, pts.toString().strip()));
        legend(s, color, name, row, false);
    }

    private static void legend(StringBuilder s, String color, String name, int row, boolean dashed) {
        int x = WIDTH - RIGHT + 12;
        int y = TOP + 12 + row * 20;
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
            x, y, x + 24, y, color, dashed ? " stroke-dasharray=\"6,4\"" : ""));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 30, y + 4, escape(name)));
    }

    static String label(long size) {
        if (size >= 1 << 20 && size % (1 << 20) == 0) {
            return (size >> 20) + "M";
        }
        if (size >= 1 << 10 && size % (1 << 10) == 0) {
            return (size >> 10) + "K";
        }
        return Long.toString(size);
    }

    private static String escape(String t) {
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
