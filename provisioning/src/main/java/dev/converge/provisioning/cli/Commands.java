package dev.converge.provisioning.cli;

import picocli.CommandLine;

/** The list of subcommands, kept in one place so each command stays in its own small class. */
final class Commands {
    private Commands() {
    }

    static void register(CommandLine cl) {
        // subcommands are added here as they are built
    }
}
