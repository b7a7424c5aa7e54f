package dev.jrxe.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code jrxe} command line: one subcommand per tool. */
@Command(name = "jrxe", mixinStandardHelpOptions = true, version = "jrxe 0.1.0",
    description = "jrxe: a software RDMA NIC (RoCEv2 over UDP) for the JVM.",
    subcommands = {
        DemoCommand.class,
        DevinfoCommand.class,
        RcPingpongCommand.class,
        UcPingpongCommand.class,
        UdPingpongCommand.class,
        SrqPingpongCommand.class,
        RegBenchCommand.class,
        BenchCommand.class,
        SimCommand.class,
        RcStreamCommand.class,
        RpingCommand.class,
        CommandLine.HelpCommand.class,
    })
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        int rc = new CommandLine(new Main()).execute(args);
        System.exit(rc);
    }
}
