package dev.converge.cli;

import java.sql.SQLException;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code converge} command line: one subcommand per thing a user runs. */
@Command(name = "converge", mixinStandardHelpOptions = true, version = "converge 0.1.0",
        description = "Jobs whose side effects live on other services, made safe to run twice.",
        subcommands = {CommandLine.HelpCommand.class})
public final class Main {

    @CommandLine.Option(names = "--log-format", paramLabel = "text|json", scope = CommandLine.ScopeType.INHERIT,
            description = "Log as text (default) or as one JSON object a line, with job_id, job_type, queue, "
                    + "attempt and flow_id while a job runs (also: CONVERGE_LOG_FORMAT=json).")
    void logFormat(String format) {
        LogFormat.use(format);
    }

    public static void main(String[] args) {
        // java.util.logging (the OpenTelemetry SDK logs through it) goes to Logback, in the log's format
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        System.exit(commandLine(args).execute(args));
    }

    /** The command line with every subcommand registered; tests execute it in-process. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        Commands.register(cl);
        cl.setExecutionExceptionHandler(Main::report);
        return cl;
    }

    /**
     * The command line for these arguments: with only the subcommand they name, when they plainly name
     * one (see {@link Commands#named}), else with every one; either runs them the same way.
     */
    static CommandLine commandLine(String[] args) {
        CommandLine cl = new CommandLine(new Main());
        Commands.register(cl, args);
        cl.setExecutionExceptionHandler(Main::report);
        return cl;
    }

    /**
     * What a person can fix — a value they passed, a database that is missing or unreachable, a
     * port already taken — is said in one line or two, without a stack trace (exit 2 for a bad
     * value, 1 otherwise). Anything else is a defect and keeps its stack trace, as does every
     * error when CONVERGE_DEBUG is set.
     */
    static int report(Exception e, CommandLine cl, CommandLine.ParseResult parsed) throws Exception {
        boolean debug = System.getenv("CONVERGE_DEBUG") != null;
        boolean badValue = e instanceof IllegalArgumentException;
        if (debug || !(badValue || operational(e))) {
            throw e;
        }
        String name = cl.getCommandName();
        String said = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        cl.getErr().println(name + ": " + said);
        Throwable root = rootCause(e);
        if (root != e && root.getMessage() != null && !said.contains(root.getMessage())) {
            cl.getErr().println(name + ": because " + root.getMessage());
        }
        cl.getErr().flush();
        return badValue ? 2 : 1;
    }

    /** A failure of the surroundings rather than of this program: the database or the network. */
    private static boolean operational(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException || t instanceof java.net.BindException
                    || t instanceof java.net.ConnectException || t instanceof io.javalin.util.JavalinBindException) {
                return true;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
