package dev.jrxe.tools;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code jrxe bench ...}: benchmarks that report ratios against a baseline measured in the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks.",
    subcommands = {BenchLinkCommand.class, BenchPingpongCommand.class, BenchMkeyCommand.class, BenchSrdCommand.class,
        CommandLine.HelpCommand.class})
public final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
