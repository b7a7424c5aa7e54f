package dev.jrxe.tools;

import dev.jrxe.ib.QpType;
import picocli.CommandLine.Command;

/**
 * {@code jrxe uc-pingpong}: {@code ibv_uc_pingpong} over a jrxe device. It is rc-pingpong's run
 * ({@link ConnectedPingpongCommand}) with a UC QP, whose RTR and RTS transitions carry only what UC
 * has (no READ/atomic resources, RNR timer or retries), and without rc_pingpong's ODP, timestamp
 * and extended-API options; the TCP exchange and the output lines are the same. UC sends no ACKs,
 * so a lost message stalls both sides, as with the C tool. Deviations: see {@link PingpongCommand}.
 */
@Command(name = "uc-pingpong", sortOptions = false,
    description = {"UC SEND ping-pong like ibv_uc_pingpong.",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it."})
public final class UcPingpongCommand extends ConnectedPingpongCommand {
    @Override
    int qpType() {
        return QpType.UC;
    }
}
