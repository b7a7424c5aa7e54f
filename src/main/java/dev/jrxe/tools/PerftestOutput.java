package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import java.io.PrintWriter;
import java.util.Arrays;

/** What perftest prints, in its words and formats (../shared/reference/cm-and-perftest.md §4.9). */
final class PerftestOutput {
    /** RESULT_LINE: 87 dashes. */
    static final String LINE = "-".repeat(87);
    /** perftest drops the largest samples (LAT_MEASURE_TAIL) before its latency statistics. */
    static final int LAT_MEASURE_TAIL = 2;

    private PerftestOutput() {
    }

    /**
     * What the header block shows; {@code rdmaCm}: the QPs connected by rdma_cm (-R),
     * {@code rdmaCmExchange}: the exchange over rdma_cm (-R or -z), {@code postList}: -l.
     */
    record Info(PerftestTest test, boolean server, String device, int qps, String connection, int txDepth,
                int rxDepth, int cqMod, int mtu, int gidIndex, int outReads, boolean cmpAndSwap, boolean duplex,
                boolean rdmaCm, boolean rdmaCmExchange, int postList) {
    }

    static void waitingBox(PrintWriter o) {
        o.println();
        o.println("************************************");
        o.println("* Waiting for client to connect... *");
        o.println("************************************");
    }

    static void header(PrintWriter o, Info i) {
        o.println(LINE);
        o.println("                    " + i.test().title(i.cmpAndSwap(), i.duplex(), i.postList() > 1));
        o.printf(" Dual-port       : OFF\t\tDevice         : %s%n", i.device());
        o.printf(" Number of qps   : %d\t\tTransport type : IB%n", i.qps());
        o.printf(" Connection type : %s\t\tUsing SRQ      : OFF%n", i.connection());
        o.println(" PCIe relax order: ON");
        o.println(" ibv_wr* API     : OFF");
        // perftest: TX depth on a client or with -b, RX depth (SEND) on a server or with -b
        if (!i.server() || i.duplex()) {
            o.printf(" TX depth        : %d%n", i.txDepth());
        }
        if (i.postList() > 1) {
            o.printf(" Post List       : %d%n", i.postList());
        }
        if (i.test().verb == PerftestTest.Verb.SEND && (i.server() || i.duplex())) {
            o.printf(" RX depth        : %d%n", i.rxDepth());
        }
        if (i.test().bw) {
            o.printf(" CQ Moderation   : %d%n", i.cqMod());
        }
        o.printf(" Mtu             : %d[B]%n", Mtu.bytes(i.mtu()));
        o.println(" Link type       : Ethernet");
        o.printf(" GID index       : %d%n", i.gidIndex());
        if (i.test().readsOrAtomics()) {
            o.printf(" Outstand reads  : %d%n", i.outReads());
        } else {
            o.println(" Max inline data : 0[B]");
        }
        o.println(" rdma_cm QPs\t : " + (i.rdmaCm() ? "ON" : "OFF"));
        o.println(" Data ex. method : " + (i.rdmaCmExchange() ? "rdma_cm" : "Ethernet"));
        if (i.rdmaCm() && i.server()) {
            // what perftest's server prints here, though its rdma_cm QPs are connected by now
            o.println(LINE);
            o.println(" Waiting for client rdma_cm QP to connect");
            o.println(" Please run the same command with the IB/RoCE interface IP");
        }
        o.println(LINE);
    }

    /** C's {@code %#0Nx}: zero padded to N characters, "0x" first unless the value is 0. */
    static String alt(long v, int width) {
        if (v == 0) {
            return "0".repeat(width);
        }
        String h = Long.toHexString(v);
        return "0x" + "0".repeat(Math.max(0, width - 2 - h.length())) + h;
    }

    static void address(PrintWriter o, String which, PerftestRecord r, PerftestTest test) {
        StringBuilder s = new StringBuilder(" ").append(which).append(" address: LID ").append(alt(r.lid(), 4))
            .append(" QPN ").append(alt(r.qpn(), 6)).append(" PSN ").append(alt(r.psn(), 6));
        if (test.verb == PerftestTest.Verb.READ) {
            s.append(" OUT ").append(alt(r.outReads(), 4));
        }
        if (test.verb != PerftestTest.Verb.SEND) {
            s.append(" RKey ").append(alt(r.rkey() & 0xFFFFFFFFL, 8)).append(" VAddr ").append(alt(r.vaddr(), 16));
        }
        o.println(s);
        StringBuilder g = new StringBuilder(" GID: ");
        byte[] raw = r.gid().raw();
        for (int i = 0; i < raw.length; i++) {
            g.append(String.format("%02d", raw[i] & 0xFF)).append(i < raw.length - 1 ? ":" : "");
        }
        o.println(g);
    }

    /** The BW table's header; {@code cpuUtil}: with perftest's {@code CPU_Util[%]} column (--cpu_util). */
    static void bwHeader(PrintWriter o, boolean gbits, boolean cpuUtil) {
        String unit = gbits ? "Gb/sec" : "MB/sec";
        o.printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]%s%n", unit, unit,
            cpuUtil ? "    CPU_Util[%]" : "");
    }

    static void bwRow(PrintWriter o, PerftestOob.Report r) {
        bwRow(o, r, Double.NaN, false);
    }

    /**
     * A BW row (perftest's REPORT_FMT, or in Gb/s below 0.1 its six-decimal REPORT_FMT_EXT); a CPU
     * utilization that is not NaN goes in the CPU_Util column, as perftest prints it.
     */
    static void bwRow(PrintWriter o, PerftestOob.Report r, double cpuUtil, boolean gbits) {
        if (gbits && r.bwAvg() < 0.1) {
            o.printf(" %-7d    %d           %-7.6f            %-7.6f            %-7.6f", r.size(), r.iters(), r.bwPeak(),
                r.bwAvg(), r.msgRate());
        } else {
            o.printf(" %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iters(), r.bwPeak(),
                r.bwAvg(), r.msgRate());
        }
        endRow(o, cpuUtil);
    }

    /** perftest's REPORT_EXT or, for a utilization that is not NaN, REPORT_EXT_CPU_UTIL. */
    private static void endRow(PrintWriter o, double cpuUtil) {
        if (!Double.isNaN(cpuUtil)) {
            o.printf("\t    %-3.2f", cpuUtil);
        }
        o.printf("%n");
    }

    /** Bytes per second in the table's unit: MB = 2^20 bytes, or Gb/s at 1.25e8 bytes per Gb/s. */
    static double bw(double bytesPerSecond, boolean gbits) {
        return gbits ? bytesPerSecond / 1.25e8 : bytesPerSecond / (1 << 20);
    }

    static void latHeader(PrintWriter o) {
        o.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
            + "   99% percentile[usec]   99.9% percentile[usec] ");
    }

    /** The table header of a latency test's duration mode (RESULT_FMT_LAT_DUR). */
    static void latDurationHeader(PrintWriter o, boolean cpuUtil) {
        o.println(" #bytes        #iterations       t_avg[usec]    tps average" + (cpuUtil ? "    CPU_Util[%]" : ""));
    }

    /**
     * A latency test's duration row (perftest's print_report_lat_duration): {@code iters}
     * iterations in {@code nanos} measured, t_avg = the time per iteration divided by
     * {@code rttFactor} (2 for the one-way WRITE and SEND, 1 for READ), tps = iterations per second.
     */
    static void latDurationRow(PrintWriter o, int size, long iters, long nanos, int rttFactor, double cpuUtil) {
        double usec = nanos / 1e3;
        o.printf(" %-7d       %d            %-7.2f        %-7.2f", size, iters, usec / rttFactor / iters,
            iters / (nanos / 1e9));
        endRow(o, cpuUtil);
    }

    /** The latency statistics of perftest's print_report_lat. */
    record Latency(double min, double max, double typical, double avg, double stdev, double p99, double p999) {
    }

    /**
     * From the post timestamps of the iterations (ns): the differences of consecutive ones, halved
     * for one-way tests (WRITE, SEND), sorted, the largest {@link #LAT_MEASURE_TAIL} dropped.
     */
    static Latency latency(long[] postedNanos, int iters, boolean halve) {
        int n = iters - 1;
        double[] d = new double[Math.max(n, 0)];
        for (int i = 0; i < n; i++) {
            d[i] = (postedNanos[i + 1] - postedNanos[i]) / 1e3 / (halve ? 2 : 1);
        }
        Arrays.sort(d);
        int kept = Math.max(1, n - LAT_MEASURE_TAIL);
        if (n <= 0) {
            return new Latency(0, 0, 0, 0, 0, 0, 0);
        }
        kept = Math.min(kept, n);
        double sum = 0;
        for (int i = 0; i < kept; i++) {
            sum += d[i];
        }
        double avg = sum / kept;
        double var = 0;
        for (int i = 0; i < kept; i++) {
            var += (d[i] - avg) * (d[i] - avg);
        }
        double stdev = Math.sqrt(var / kept);
        // perftest: sorted[ceil(0.99 n)] (clamped to the last kept sample); stdev without its truncation quirk
        int p99 = Math.min(kept - 1, (int) Math.ceil(0.99 * kept));
        int p999 = Math.min(kept - 1, (int) Math.ceil(0.999 * kept));
        return new Latency(d[0], d[kept - 1], d[kept / 2], avg, stdev, d[p99], d[p999]);
    }

    static void latRow(PrintWriter o, int size, int iters, Latency l) {
        o.printf(" %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f%n",
            size, iters, l.min(), l.max(), l.typical(), l.avg(), l.stdev(), l.p99(), l.p999());
    }
}
