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
        SrdPingpongCommand.class,
        SrqPingpongCommand.class,
        RegBenchCommand.class,
        BenchCommand.class,
        SimCommand.class,
        RcStreamCommand.class,
        RpingCommand.class,
        ExampleCommand.class,
        HelpCommand.class,
    })
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The one way to see a failure's stack trace (also {@code JRXE_DEBUG=1}); on every command. */
    @CommandLine.Option(names = "--debug", scope = CommandLine.ScopeType.INHERIT,
        description = "on a failure, print its stack trace")
    boolean debug;

    private static final String[] EXIT_FOOTER = {"",
        "Exit status: 0 done, 1 failed while running (one line on stderr says why), 2 bad command line."};

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Exit status of a command line that could not be used (an unknown option, a bad value). */
    public static final int EXIT_USAGE = 2;
    /** Exit status of a run that failed (the peer vanished, a port was taken, ...). */
    public static final int EXIT_FAILURE = 1;
    private static final String VERSION = "jrxe 0.1.0";

    public static void main(String[] args) {
        System.exit(execute(commandLine(), args));
    }

    /**
     * Runs {@code args} on {@code cl}; an unknown command is a usage error even beside
     * {@code --help} (picocli would print the top-level help and exit 0).
     */
    public static int execute(CommandLine cl, String... args) {
        if (args.length > 0 && !args[0].startsWith("-") && !cl.getSubcommands().containsKey(args[0])) {
            cl.getErr().println("jrxe: no such command '" + args[0] + "'");
            cl.getErr().println("Try 'jrxe --help' for the commands.");
            cl.getErr().flush();
            return EXIT_USAGE;
        }
        return cl.execute(args);
    }

    /**
     * The {@code jrxe} command line as {@link #main} runs it: a usage error is one line on stderr
     * naming what was wrong, then one line pointing at {@code --help}, exit status {@value #EXIT_USAGE};
     * a failure while running is one line on stderr, no stack trace ({@code --debug} or
     * {@code JRXE_DEBUG=1} asks for one), exit status {@value #EXIT_FAILURE}; every subcommand answers {@code -V/--version}.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler(Main::runFailed);
        // after NAME every word is the example's, its options too
        cl.getSubcommands().get("example").setStopAtPositional(true);
        PerftestCommand.register(cl);
        cl.setParameterExceptionHandler(Main::usageError);
        cl.setExecutionExceptionHandler(Main::runFailed);
        versions(cl);
        footers(cl);
        return cl;
    }

    private static void versions(CommandLine cl) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommandSpec().version().length == 0) {
                sub.getCommandSpec().version(VERSION);
            }
            versions(sub);
        }
    }

    private static void footers(CommandLine cl) {
        cl.getCommandSpec().usageMessage().footer(EXIT_FOOTER);
        for (CommandLine sub : cl.getSubcommands().values()) {
            footers(sub);
        }
    }

    /** {@code jrxe rc-pingpong}: the command's full name, as a user types it. */
    static String qualifiedName(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName();
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        err.println(qualifiedName(cmd) + ": " + oneLine(e.getMessage()));
        err.println("Try '" + qualifiedName(cmd) + " --help' for its options.");
        err.flush();
        return EXIT_USAGE;
    }

    private static int runFailed(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        java.io.PrintWriter err = cmd.getErr();
        String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        err.println(qualifiedName(cmd) + ": " + oneLine(what));
        if (System.getenv("JRXE_DEBUG") != null || debugAsked(parsed)) {
            e.printStackTrace(err);
        }
        err.flush();
        return EXIT_FAILURE;
    }

    private static boolean debugAsked(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }
}
