package dev.converge.provisioning.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code converge} command line: one subcommand per thing a user runs. */
@Command(name = "converge", mixinStandardHelpOptions = true, version = "converge 0.1.0",
        description = "Jobs whose side effects live on other services, made safe to run twice.",
        subcommands = {CommandLine.HelpCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand registered; tests execute it in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        Commands.register(cl);
        return cl;
    }
}
