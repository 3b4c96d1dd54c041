package dev.converge.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The list of subcommands, kept in one place so each command stays in its own small class.
 *
 * <p>picocli builds a command's whole model (every option of every nested command, by reflection)
 * when it is registered: for all sixteen that is about a third of a CPU-second of each start, where
 * the one a person runs needs a fraction of it. So a command line that names its subcommand gets
 * that one only; anything else (no subcommand, help, a name that is not one, options before it
 * other than {@code --log-format}) gets them all, and behaves exactly as before.
 */
final class Commands {
    /** Every subcommand by its name, in the order the usage lists them; each made only when registered. */
    private static final Map<String, Supplier<Object>> ALL = new LinkedHashMap<>();

    static {
        // subcommands are added here as they are built
        add(BenchCommand.class, BenchCommand::new);
        add(McpCommand.class, McpCommand::new);
        add(ApproveDeleteCommand.class, ApproveDeleteCommand::new);
        add(PermitWelcomeCommand.class, PermitWelcomeCommand::new);
        add(HandCommand.class, HandCommand::new);
        add(DemoCommand.class, DemoCommand::new);
        add(ServerCommand.class, ServerCommand::new);
        add(WorkerCommand.class, WorkerCommand::new);
        add(TenantCommand.class, TenantCommand::new);
        add(OperatorCommand.class, OperatorCommand::new);
        add(MigrateCommand.class, MigrateCommand::new);
        add(ReconcileCommand.class, ReconcileCommand::new);
        add(LeafsimCommand.class, LeafsimCommand::new);
        add(MailsimCommand.class, MailsimCommand::new);
        add(ChaosCommand.class, ChaosCommand::new);
        add(AbuseCommand.class, AbuseCommand::new);
    }

    private Commands() {
    }

    private static <T> void add(Class<T> type, Supplier<Object> make) {
        Command c = type.getAnnotation(Command.class);
        if (c == null || c.name().isEmpty() || c.aliases().length > 0) {
            // a name in the annotation is what the lookup below matches; an alias would need a second key
            throw new IllegalStateException(type.getName() + " needs a @Command name and no aliases");
        }
        ALL.put(c.name(), make);
    }

    /** Registers every subcommand. */
    static void register(CommandLine cl) {
        ALL.values().forEach(make -> cl.addSubcommand(make.get()));
    }

    /** Registers only the subcommand {@code args} run, when they plainly name one; otherwise every subcommand. */
    static void register(CommandLine cl, String[] args) {
        String name = named(args);
        if (name == null) {
            register(cl);
        } else {
            cl.addSubcommand(ALL.get(name).get());
        }
    }

    /**
     * The subcommand the arguments run: their first word after any {@code --log-format} (the only
     * option of the top command that does not end the run itself), when it is a subcommand's name.
     * Null for anything else, such as {@code --help}, {@code help worker}, or a misspelt name, which
     * the full command line answers.
     */
    static String named(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--log-format")) {
                i++; // its value
            } else if (a.startsWith("--log-format=")) {
                continue;
            } else {
                return ALL.containsKey(a) ? a : null;
            }
        }
        return null;
    }
}
