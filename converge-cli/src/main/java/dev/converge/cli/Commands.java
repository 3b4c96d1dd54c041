package dev.converge.cli;

import picocli.CommandLine;

/** The list of subcommands, kept in one place so each command stays in its own small class. */
final class Commands {
    private Commands() {
    }

    static void register(CommandLine cl) {
        // subcommands are added here as they are built
        cl.addSubcommand(new BenchCommand());
        cl.addSubcommand(new McpCommand());
        cl.addSubcommand(new ApproveDeleteCommand());
        cl.addSubcommand(new PermitWelcomeCommand());
        cl.addSubcommand(new HandCommand());
        cl.addSubcommand(new DemoCommand());
        cl.addSubcommand(new ServerCommand());
        cl.addSubcommand(new WorkerCommand());
        cl.addSubcommand(new TenantCommand());
        cl.addSubcommand(new OperatorCommand());
        cl.addSubcommand(new MigrateCommand());
        cl.addSubcommand(new ReconcileCommand());
        cl.addSubcommand(new LeafsimCommand());
        cl.addSubcommand(new MailsimCommand());
        cl.addSubcommand(new ChaosCommand());
        cl.addSubcommand(new AbuseCommand());
    }
}
