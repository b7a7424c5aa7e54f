package dev.jrxe.tools;

import dev.jrxe.tools.LinkBench;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe bench link}: the link alone moving RoCE-sized datagrams one way between two
 * processes, per send/receive path, next to a raw DatagramChannel baseline measured in the same
 * run, with the ratio.
 */
@Command(name = "link", mixinStandardHelpOptions = true,
    description = "Packets/s and GB/s of each link path (CHANNEL, MMSG, GSO) against a raw DatagramChannel "
        + "baseline, sender here and receiver in a child JVM.")
public final class BenchLinkCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(converter = Converters.LinkPath.class,
        names = "--paths", split = ",", paramLabel = "PATH", description = "paths to measure (default ${DEFAULT-VALUE})",
        defaultValue = "RAW,CHANNEL,MMSG,GSO")
    List<String> paths;

    @Option(converter = Converters.DatagramPayload.class,
        names = "--payload", description = "RoCE payload per packet in bytes; the datagram adds BTH and ICRC "
        + "(default ${DEFAULT-VALUE}: 4112-byte datagrams)", defaultValue = "4096")
    int payload;

    @Option(converter = Converters.PositiveSeconds.class,
        names = "--seconds", description = "measured seconds per path (default ${DEFAULT-VALUE})",
        defaultValue = "3")
    double seconds;

    @Option(converter = Converters.NonNegative.class,
        names = "--warmup-ms", description = "warm-up per path (default ${DEFAULT-VALUE})", defaultValue = "500")
    int warmupMs;

    @Option(converter = Converters.Batch.class,
        names = "--batch", description = "datagrams per system call (default ${DEFAULT-VALUE})",
        defaultValue = "64")
    int batch;

    @Option(converter = Converters.Positive.class,
        names = "--repeat", description = "rounds over all paths; the median is reported (default ${DEFAULT-VALUE})",
        defaultValue = "1")
    int repeat;

    @Option(names = "--crc", description = "compute a CRC-32 over every datagram as the ICRC sealer would")
    boolean crc;

    @Override
    public Integer call() throws Exception {
        LinkBench.Options o = LinkBench.Options.defaults()
            .withPaths(paths)
            .withPayload(payload)
            .withWarmup(Duration.ofMillis(warmupMs))
            .withDuration(Duration.ofMillis((long) (seconds * 1000)))
            .withBatch(batch)
            .withRepeat(repeat)
            .withCrc(crc);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
        LinkBench.run(o, out);
        return 0;
    }
}
