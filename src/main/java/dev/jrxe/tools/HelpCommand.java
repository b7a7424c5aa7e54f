package dev.jrxe.tools;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe help [COMMAND...]}: the help of the command the words name, at any depth
 * ({@code help bench pingpong} is {@code bench pingpong}'s help; picocli's own help command
 * stops at the first word). A word that is not a command is a usage error.
 */
@Command(name = "help", helpCommand = true,
    description = "Show the help of the command named (e.g. 'help bench pingpong') and exit.")
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {
    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "the command, with its subcommands")
    String[] commands = {};

    private CommandLine self;
    private PrintWriter out;
    private CommandLine.Help.ColorScheme colors;

    @Override
    public void init(CommandLine helpCommandLine, CommandLine.Help.ColorScheme colorScheme, PrintWriter out,
                     PrintWriter err) {
        this.self = helpCommandLine;
        this.colors = colorScheme;
        this.out = out;
    }

    @Override
    public void run() {
        CommandLine target = self.getParent();
        for (String word : commands) {
            CommandLine next = target.getSubcommands().get(word);
            if (next == null) {
                throw new CommandLine.ParameterException(self, "no such command '" + word + "' in '"
                    + Main.qualifiedName(target) + "'");
            }
            target = next;
        }
        target.usage(out, colors);
    }
}
