package dev.converge.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.UnaryOperator;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code converge hand ...}: a person's hand when automation stops, through the server's API.
 * Retrying a job or a flow and settling a ledger entry or a token need the operator token (read
 * from {@code CONVERGE_OPERATOR_TOKEN}); retrying one of a tenant's sites needs its approver token
 * ({@code CONVERGE_APPROVER_TOKEN}); {@code --token-env} names another variable. Every action needs {@code --reason}; it is recorded with who acted.
 */
@Command(name = "hand", mixinStandardHelpOptions = true,
        description = "Act where automation stopped: retry a failed job, a flow or a site that needs attention; cancel a "
                + "waiting job; "
                + "settle a ledger entry or a token the machine could not decide. Every action needs --reason.",
        subcommands = {HandCommand.RetryJob.class, HandCommand.CancelJob.class, HandCommand.RetryFlow.class, HandCommand.RetrySite.class,
                HandCommand.SettleEntry.class, HandCommand.SettleToken.class})
public final class HandCommand {

    /** One action: a POST with a reason, its outcome printed. */
    abstract static class Act extends TenantDeskCommand {
        @Option(names = "--reason", required = true, description = "Why you act; kept in the history with who acted.")
        String reason;

        Act(UnaryOperator<String> env) {
            super(env);
        }

        abstract String path();

        void fill(ObjectNode body) {
        }

        @Override
        final int act(Api api, PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
            ObjectNode body = JsonNodeFactory.instance.objectNode().put("reason", reason);
            fill(body);
            Answer a = api.post(path(), body.toString());
            if (a.status() != 200) {
                return refused(a, err);
            }
            boolean applied = a.body().path("applied").asBoolean();
            (applied ? out : err).println(a.body().path("detail").asText());
            return applied ? 0 : 3;
        }
    }

    @Command(name = "retry-job", mixinStandardHelpOptions = true,
            description = "Run a job that failed for good again (operator token). Exit 3: it was not failed.")
    public static final class RetryJob extends Act {
        @Override
        Needs needs() {
            return Needs.OPERATOR;
        }

        @Option(names = "--id", required = true, description = "The job's id.")
        long id;

        public RetryJob() {
            this(System::getenv);
        }

        public RetryJob(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/ops/jobs/" + id + "/retries";
        }
    }

    @Command(name = "cancel-job", mixinStandardHelpOptions = true,
            description = "Cancel a job that is waiting, never a running one (operator token); a step of a flow so "
                    + "cancelled ends its flow, which compensates. Exit 3: it was not waiting.")
    public static final class CancelJob extends Act {
        @Override
        Needs needs() {
            return Needs.OPERATOR;
        }

        @Option(names = "--id", required = true, description = "The job's id.")
        long id;

        public CancelJob() {
            this(System::getenv);
        }

        public CancelJob(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/ops/jobs/" + id + "/cancellations";
        }
    }

    @Command(name = "retry-flow", mixinStandardHelpOptions = true,
            description = "Retry a flow that needs attention from where it stopped (operator token). Exit 3: it did not "
                    + "need attention (or someone retried it first).")
    public static final class RetryFlow extends Act {
        @Override
        Needs needs() {
            return Needs.OPERATOR;
        }

        @Option(names = "--id", required = true, description = "The flow's id.")
        long id;

        public RetryFlow() {
            this(System::getenv);
        }

        public RetryFlow(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/ops/flows/" + id + "/retries";
        }
    }

    @Command(name = "retry-site", mixinStandardHelpOptions = true,
            description = "Retry one of your sites (approver token): a failed one is provisioned again, one that needs "
                    + "attention continues from where it stopped.")
    public static final class RetrySite extends Act {
        @Option(names = "--site", required = true, converter = SiteIdConverter.class,
                description = "The site's id (site_...).")
        String site;

        public RetrySite() {
            this(System::getenv);
        }

        public RetrySite(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/sites/" + site + "/retries";
        }
    }

    @Command(name = "settle-entry", mixinStandardHelpOptions = true,
            description = "Settle a ledger entry the machine could not decide (operator token): it exists at the leaf "
                    + "under an id (adopted and confirmed), or it does not (released).")
    public static final class SettleEntry extends Act {
        @Override
        Needs needs() {
            return Needs.OPERATOR;
        }

        @Option(names = "--id", required = true, description = "The ledger entry's id.")
        long id;

        static final class Verdict {
            @Option(names = "--exists", paramLabel = "LEAF_ID", description = "It exists at the leaf under this id.")
            String leafId;

            @Option(names = "--absent", description = "It does not exist at the leaf.")
            boolean absent;
        }

        @ArgGroup(exclusive = true, multiplicity = "1")
        Verdict verdict;

        public SettleEntry() {
            this(System::getenv);
        }

        public SettleEntry(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/ops/ledger-entries/" + id + "/settlements";
        }

        @Override
        void fill(ObjectNode body) {
            body.put("exists", verdict.leafId != null);
            if (verdict.leafId != null) {
                body.put("leaf_id", verdict.leafId);
            }
        }
    }

    @Command(name = "settle-token", mixinStandardHelpOptions = true,
            description = "Settle a token whose use is unknown (operator token): it was used (spent) or not (available).")
    public static final class SettleToken extends Act {
        @Override
        Needs needs() {
            return Needs.OPERATOR;
        }

        @Option(names = "--id", required = true, description = "The token's id (never its value).")
        long id;

        static final class Verdict {
            @Option(names = "--used", description = "Its use happened: spend it.")
            boolean used;

            @Option(names = "--unused", description = "Its use did not happen: make it available again.")
            boolean unused;
        }

        @ArgGroup(exclusive = true, multiplicity = "1")
        Verdict verdict;

        public SettleToken() {
            this(System::getenv);
        }

        public SettleToken(UnaryOperator<String> env) {
            super(env);
        }

        @Override
        String path() {
            return "v1/ops/tokens/" + id + "/settlements";
        }

        @Override
        void fill(ObjectNode body) {
            body.put("used", verdict.used);
        }
    }
}
