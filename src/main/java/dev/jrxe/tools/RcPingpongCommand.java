package dev.jrxe.tools;

import dev.jrxe.ib.QpType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe rc-pingpong}: {@code ibv_rc_pingpong} over a jrxe device, with its options, defaults,
 * TCP exchange (52-byte "LID:QPN:PSN:GID" messages, then "done"), QP transitions, messages and
 * output lines, so that either side can face the real tool. The run is {@link ConnectedPingpongCommand}'s
 * with an RC QP; this class adds rc_pingpong's own options (ODP, completion timestamps, the
 * extended send API). Deviations from the C tool: see {@link PingpongCommand}.
 */
@Command(name = "rc-pingpong", sortOptions = false,
    description = {"RC SEND ping-pong like ibv_rc_pingpong.",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it."})
public final class RcPingpongCommand extends ConnectedPingpongCommand {
    @Option(names = {"-o", "--odp"}, order = 110, description = "use on demand paging")
    void odp(boolean on) {
        odp = on;
    }

    @Option(names = {"-O", "--iodp"}, order = 120, description = {"use implicit on demand paging",
        "(the buffer comes from jrxe's allocator, which the region reaches directly)"})
    void implicitOdp(boolean on) {
        implicitOdp = on;
    }

    @Option(names = {"-P", "--prefetch"}, order = 130, description = "prefetch an ODP MR")
    void prefetch(boolean on) {
        prefetch = on;
    }

    @Option(names = {"-t", "--ts"}, order = 140, description = "get CQE with timestamp")
    void useTs(boolean on) {
        useTs = on;
    }

    @Option(names = {"-N", "--new_send"}, order = 160, description = "use new post send WR API")
    void newSend(boolean on) {
        newSend = on;
    }

    @Override
    int qpType() {
        return QpType.RC;
    }

    @Override
    void optionsAgree() {
        if (implicitOdp) {
            odp = true;
        }
        Converters.require(spec, odp || !prefetch, "prefetch is valid only with on-demand memory region");
    }
}
