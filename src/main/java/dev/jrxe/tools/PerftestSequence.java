package dev.jrxe.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One side of a perftest test from the QP records on: the record exchanges before the traffic,
 * the runs (one size, or with -a every size), the report exchange and the closing exchange, in
 * the order each of perftest 4.5's mains has them, and the rows printed as each prints them
 * (linux-rdma/perftest v4.5-0.17: src/write_bw.c, read_bw.c, atomic_bw.c, send_bw.c,
 * write_lat.c, read_lat.c, send_lat.c; ../shared/reference/cm-and-perftest.md §4.5). Between the
 * sizes of -a only the SEND tests exchange anything (their receives are posted first); the
 * WRITE, READ and atomic BW tests exchange around each run only with -b, and a non-duplex server
 * of theirs waits in one exchange for the client's whole run, then prints the client's report of
 * its last size.
 */
final class PerftestSequence {
    /**
     * What this side runs: its test and role, the sizes (several with -a), -b, -D seconds (null:
     * -n iterations), and the output options.
     */
    record Plan(PerftestTest test, boolean client, List<Integer> sizes, boolean all, boolean duplex, Integer duration,
                boolean gbits, boolean cpuUtil, boolean check) {
        /** A duration run's clock, or null in iteration mode. */
        PerftestWindow window() {
            return duration == null ? null : PerftestWindow.ofSeconds(duration, cpuUtil);
        }
    }

    private final Plan plan;
    private final PerftestOob oob;
    private final PerftestRun run;
    private final PrintWriter out;
    private final PrintWriter err;
    private final List<PerftestPlot.Point> points = new ArrayList<>();

    /** {@code plan} over {@code oob} with {@code run}'s QPs, printing rows to {@code out} and notes to {@code err}. */
    PerftestSequence(Plan plan, PerftestOob oob, PerftestRun run, PrintWriter out, PrintWriter err) {
        this.plan = plan;
        this.oob = oob;
        this.run = run;
        this.out = out;
        this.err = err;
    }

    /** The rows printed, for --csv and --svg. */
    List<PerftestPlot.Point> points() {
        return points;
    }

    /**
     * The record exchanges before the traffic, with the QPs connected in between: N records (one
     * per QP), the connection, then for the SEND tests one record and N more, for the others N
     * more and one; the WRITE and READ latency tests begin with one record.
     *
     * @return the peer's records
     */
    PerftestRecord[] before() throws IOException {
        PerftestTest t = plan.test();
        boolean send = t.verb == PerftestTest.Verb.SEND;
        if (!t.bw && !send) {
            handshake();
        }
        PerftestRecord[] remote = handshakeAll();
        run.connect(remote);
        if (send) {
            handshake();
            handshakeAll();
        } else {
            handshakeAll();
            handshake();
        }
        return remote;
    }

    /** The table, the runs with their exchanges, and the closing exchange of the test. */
    void traffic() throws IOException {
        PerftestTest t = plan.test();
        boolean timed = plan.duration() != null;
        if (t.bw) {
            PerftestOutput.bwHeader(out, plan.gbits(), plan.cpuUtil() && timed);
        } else if (plan.client() || t.verb != PerftestTest.Verb.READ) {
            if (timed) {
                PerftestOutput.latDurationHeader(out, plan.cpuUtil());
            } else {
                PerftestOutput.latHeader(out);
            }
        }
        if (t.bw && t.verb == PerftestTest.Verb.SEND) {
            sendBw();
        } else if (t.bw) {
            rdmaBw();
        } else if (t.verb == PerftestTest.Verb.WRITE) {
            writeLat();
        } else if (t.verb == PerftestTest.Verb.READ) {
            readLat();
        } else {
            sendLat();
        }
        out.flush();
    }

    /**
     * write_bw, read_bw, atomic_bw: a non-duplex server waits in one exchange for the client's
     * whole run, takes its report and prints it; a client runs every size, printing each, then
     * exchanges once and sends the last size's report; with -b both sides exchange before each
     * run (and, with -a, after it), then exchange reports and print their sum.
     */
    private void rdmaBw() throws IOException {
        if (!plan.client() && !plan.duplex()) {
            handshake(); // blocks until the client is done
            PerftestOob.Report theirs = oob.reports(PerftestOob.Report.NONE);
            // --cpu_util: this side sampled nothing and prints perftest's 0.00
            bwRow(theirs, plan.cpuUtil() && plan.duration() != null ? 0 : Double.NaN);
            check(lastSize());
            oob.closeConnection(run.mine[0]);
            out.println(PerftestOutput.LINE);
            return;
        }
        PerftestOob.Report mine = null;
        for (int s : plan.sizes()) {
            if (plan.duplex()) {
                handshake();
            }
            PerftestWindow w = plan.window();
            if (w != null) {
                w.start(System.nanoTime());
            }
            mine = w != null ? run.bwClientTimed(s, w, plan.gbits(), null) : run.bwClient(s, plan.gbits(), false, false);
            if (plan.duplex() && plan.all()) {
                handshake();
            }
            PerftestOob.Report row = plan.duplex() ? mine.plus(oob.reports(mine)) : mine;
            bwRow(row, cpu(w));
            check(s);
        }
        out.println(PerftestOutput.LINE);
        if (!plan.duplex()) {
            handshake();
            oob.reports(mine);
        }
        oob.closeConnection(run.mine[0]);
    }

    /**
     * send_bw: before each run the receiving sides post their receives and both exchange; a
     * server counts what it receives; -b's sides both send and receive and, in iteration mode,
     * exchange reports and print their sum; with -a one more exchange ends each size.
     */
    private void sendBw() throws IOException {
        BooleanSupplier clientDone = () -> {
            try {
                return oob.peerWaiting();
            } catch (IOException e) {
                return true; // the exchange is gone: so is the client
            }
        };
        for (int s : plan.sizes()) {
            if (!plan.client() || plan.duplex()) {
                run.postReceives(s); // the receiving sides
            }
            handshake();
            PerftestWindow w = plan.window();
            if (w != null && plan.client()) {
                w.start(System.nanoTime()); // a server's clock starts with its first message
            }
            PerftestOob.Report mine;
            boolean closed = false;
            if (plan.duplex()) {
                // both sides send and receive (run_iter_bi): the server once the client's first message came
                mine = w != null ? run.bwClientTimed(s, w, plan.gbits(), plan.client() ? null : clientDone)
                    : run.bwClient(s, plan.gbits(), true, !plan.client());
                if (w != null && plan.client()) {
                    // the server stops when this side's next exchange comes, and sends until then:
                    // this side writes its half now and receives until the server's half arrives
                    int size = s;
                    PerftestOob.Meanwhile receive = () -> run.receiveMeanwhile(size);
                    if (plan.all()) {
                        oob.handshake(run.mine[0], receive);
                    } else {
                        oob.closeConnection(run.mine[0], receive);
                        closed = true;
                    }
                }
                if (w == null) {
                    // each prints the sum of both sides' sends; in a duration run each counted its
                    // messages both ways already and prints its own, as perftest
                    mine = mine.plus(oob.reports(mine));
                }
            } else if (plan.client()) {
                mine = w != null ? run.bwClientTimed(s, w, plan.gbits(), null) : run.bwClient(s, plan.gbits(), false, false);
            } else {
                mine = w != null ? run.sendBwServerTimed(s, w, plan.gbits(), clientDone) : run.sendBwServer(s, plan.gbits(), clientDone);
            }
            bwRow(mine, cpu(w));
            if (!plan.client() && run.lost > 0) {
                err.printf(" UD: %d of %d messages arrived; %d were dropped on the way (no receive posted in time,"
                    + " or a full socket buffer: UD does not retransmit)%n", mine.iters(), mine.iters() + run.lost, run.lost);
            }
            check(s);
            if (plan.all() && !(plan.duplex() && w != null && plan.client())) {
                handshake(); // (a duplex duration client made it above)
            }
            if (closed) {
                out.println(PerftestOutput.LINE);
                return;
            }
        }
        out.println(PerftestOutput.LINE);
        oob.closeConnection(run.mine[0]);
    }

    /** write_lat: every size's run and row, the server writing first in each; no exchange after the records. */
    private void writeLat() throws IOException {
        for (int s : plan.sizes()) {
            PerftestWindow w = plan.window();
            long[] posted = run.writeLat(s, plan.client(), w);
            latencyRow(s, posted, w);
            if (s == lastSize()) {
                // the last size only: the peer may be writing the next size meanwhile
                check(s);
            }
        }
        out.println(PerftestOutput.LINE);
    }

    /** read_lat: the server waits in the closing exchange; the client runs every size, then closes. */
    private void readLat() throws IOException {
        if (!plan.client()) {
            oob.closeConnection(run.mine[0]); // blocks until the client is done
            return; // the line after the addresses is all a READ server prints
        }
        for (int s : plan.sizes()) {
            PerftestWindow w = plan.window();
            long[] posted = run.readLat(s, w);
            latencyRow(s, posted, w);
            check(s);
        }
        oob.closeConnection(run.mine[0]);
        out.println(PerftestOutput.LINE);
    }

    /** send_lat: before each size both post their receives and exchange; the client sends first. */
    private void sendLat() throws IOException {
        for (int s : plan.sizes()) {
            run.postReceives(s);
            handshake();
            PerftestWindow w = plan.window();
            long[] posted = run.sendLat(s, plan.client(), w);
            latencyRow(s, posted, w);
            check(s);
        }
        out.println(PerftestOutput.LINE);
        oob.closeConnection(run.mine[0]);
    }

    /** A latency run's row: perftest's statistics of {@code posted}, or with {@code w} its duration row. */
    private void latencyRow(int size, long[] posted, PerftestWindow w) {
        boolean read = plan.test().verb == PerftestTest.Verb.READ;
        if (w != null) {
            PerftestOutput.latDurationRow(out, size, w.counted(), w.measuredNanos(), read ? 1 : 2, w.cpuPercent());
        } else {
            PerftestOutput.Latency l = PerftestOutput.latency(posted, run.p.iters(), !read);
            PerftestOutput.latRow(out, size, run.p.iters(), l);
            points.add(new PerftestPlot.Point(size, run.p.iters(), 0, 0, 0, l));
        }
        out.flush();
    }

    private void bwRow(PerftestOob.Report r, double cpuUtil) {
        PerftestOutput.bwRow(out, r, cpuUtil, plan.gbits());
        points.add(new PerftestPlot.Point(r.size(), r.iters(), r.bwPeak(), r.bwAvg(), r.msgRate(), null));
        out.flush();
    }

    private static double cpu(PerftestWindow w) {
        return w == null ? Double.NaN : w.cpuPercent();
    }

    private int lastSize() {
        return plan.sizes().get(plan.sizes().size() - 1);
    }

    /** jrxe's --check after a run of {@code size}: what landed here, as the peer sent it. */
    private void check(int size) throws IOException {
        if (!plan.check()) {
            return;
        }
        long bytes = run.verify(size, plan.client(), plan.duplex());
        if (bytes > 0) {
            out.printf(" data check: %d bytes as the peer sent them%n", bytes);
            out.flush();
        }
    }

    private void handshake() throws IOException {
        oob.handshake(run.mine[0]);
    }

    private PerftestRecord[] handshakeAll() throws IOException {
        PerftestRecord[] r = new PerftestRecord[run.mine.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = oob.handshake(run.mine[i]);
        }
        return r;
    }
}
