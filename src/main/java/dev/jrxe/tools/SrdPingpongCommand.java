package dev.jrxe.tools;

import dev.jrxe.ib.QpType;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.SrdDv;
import picocli.CommandLine.Command;

/**
 * {@code jrxe srd-pingpong}: {@link UdPingpongCommand} (ibv_ud_pingpong's options, TCP exchange
 * and output) over a jrxe SRD QP ({@link SrdDv}): the same Q_Key, address handle and per-request
 * remote QPN, but receive buffers without the 40-byte GRH area (EFA's SRD has none) and every
 * message acknowledged, so a lost packet is retransmitted instead of stalling both sides.
 */
@Command(name = "srd-pingpong", sortOptions = false,
    description = {"SRD SEND ping-pong in the style of ibv_ud_pingpong, over jrxe's reliable unordered datagrams "
        + "(docs/SRD.md).",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it."})
public final class SrdPingpongCommand extends UdPingpongCommand {
    @Override
    int grhSize() {
        return 0;
    }

    @Override
    HotPathWarmup.Pair warmupPair() {
        return HotPathWarmup.datagram((pd, attr) -> SrdDv.createQp(pd, attr, 0), QpType.DRIVER, QKEY, 0, true);
    }

    @Override
    QueuePair createQp(ProtectionDomain pd, CompletionQueue cq, QpCap cap) {
        return SrdDv.createQp(pd, new QpInitAttr(QpType.DRIVER, cq, cq, cap), 0);
    }
}
