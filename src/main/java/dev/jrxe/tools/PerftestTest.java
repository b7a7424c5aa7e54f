package dev.jrxe.tools;

/**
 * The perftest tests jrxe runs, with what perftest's {@code init_perftest_params} and
 * {@code force_dependecies} give each by default (../shared/reference/cm-and-perftest.md §4.8).
 */
enum PerftestTest {
    WRITE_BW("write-bw", "ib_write_bw", Verb.WRITE, true, 65536, 5000, 128, 1),
    READ_BW("read-bw", "ib_read_bw", Verb.READ, true, 65536, 1000, 128, 1),
    SEND_BW("send-bw", "ib_send_bw", Verb.SEND, true, 65536, 1000, 128, 512),
    ATOMIC_BW("atomic-bw", "ib_atomic_bw", Verb.ATOMIC, true, 8, 1000, 128, 1),
    WRITE_LAT("write-lat", "ib_write_lat", Verb.WRITE, false, 2, 1000, 1, 1),
    READ_LAT("read-lat", "ib_read_lat", Verb.READ, false, 2, 1000, 1, 1),
    SEND_LAT("send-lat", "ib_send_lat", Verb.SEND, false, 2, 1000, 1, 512);

    /** The operation a test measures. */
    enum Verb {
        SEND("Send"), WRITE("RDMA_Write"), READ("RDMA_Read"), ATOMIC("Atomic");

        /** perftest's name of it in the header ("RDMA_Write BW Test"). */
        final String title;

        Verb(String title) {
            this.title = title;
        }
    }

    /** jrxe's subcommand of {@code perftest}, and the perftest binary it stands for (an alias). */
    final String command;
    final String binary;
    final Verb verb;
    /** Bandwidth (true) or latency. */
    final boolean bw;
    final int defaultSize;
    final int defaultIters;
    final int defaultTxDepth;
    final int defaultRxDepth;

    PerftestTest(String command, String binary, Verb verb, boolean bw, int size, int iters, int txDepth, int rxDepth) {
        this.command = command;
        this.binary = binary;
        this.verb = verb;
        this.bw = bw;
        this.defaultSize = size;
        this.defaultIters = iters;
        this.defaultTxDepth = txDepth;
        this.defaultRxDepth = rxDepth;
    }

    /** "RDMA_Write BW Test", "Send Latency Test", "Atomic FETCH_AND_ADD BW Test", ... */
    String title(boolean cmpAndSwap) {
        return title(cmpAndSwap, false);
    }

    /** perftest's title, with "Bidirectional " before "BW" for -b. */
    String title(boolean cmpAndSwap, boolean bidirectional) {
        return title(cmpAndSwap, bidirectional, false);
    }

    /** perftest's title (ctx_print_test_info), with "Bidirectional " for -b and "Post List " for -l above 1 before "BW". */
    String title(boolean cmpAndSwap, boolean bidirectional, boolean postList) {
        String op = verb == Verb.ATOMIC ? verb.title + " " + (cmpAndSwap ? "CMP_AND_SWAP" : "FETCH_AND_ADD") : verb.title;
        return op + " " + (bidirectional ? "Bidirectional " : "") + (postList ? "Post List " : "") + (bw ? "BW " : "Latency ")
            + "Test";
    }

    /** Whether the test's responder must grant outstanding READs or atomics (it advertises max_qp_rd_atom). */
    boolean readsOrAtomics() {
        return verb == Verb.READ || verb == Verb.ATOMIC;
    }
}
