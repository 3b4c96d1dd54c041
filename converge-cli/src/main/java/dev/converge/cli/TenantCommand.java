package dev.converge.cli;

import dev.converge.provisioning.access.Credentials;
import dev.converge.provisioning.access.Scope;
import dev.converge.provisioning.options.DurationConverter;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code converge tenant create NAME} (a tenant and its service token, printed once),
 * {@code tenant token create|list|revoke} (more tokens, each of one scope) and
 * {@code tenant update} (its limits). Run by whoever runs the service, against its database.
 */
@Command(name = "tenant", mixinStandardHelpOptions = true, description = "Manage tenants and their tokens.",
        subcommands = {TenantCommand.Create.class, TenantCommand.Token.class, TenantLimitsCommand.class})
public final class TenantCommand {
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a tenant and print its service token (the HTTP API, for the tenant's backend). The "
                    + "token is shown this once and stored only hashed; add agent and approver tokens with "
                    + "'tenant token create'.")
    static final class Create extends StoreCommand {
        @Parameters(index = "0", description = "The tenant's name.")
        String name;

        @Override
        int run(Store store) {
            Tenants.Created created = new Tenants(store).create(name);
            PrintWriter out = spec.commandLine().getOut();
            out.println("tenant " + created.tenant().id() + " (" + created.tenant().name() + ")");
            out.println("token  " + created.token());
            out.flush();
            spec.commandLine().getErr().println("Keep the token: it is shown only now. It has scope service: "
                    + "use it as 'Authorization: Bearer <token>' from your backend, never give it to an agent.");
            return 0;
        }
    }

    @Command(name = "token", mixinStandardHelpOptions = true, description = "A tenant's tokens, one scope each.",
            subcommands = {TokenCreate.class, TokenList.class, TokenRevoke.class})
    static final class Token {
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Issue a token of one scope for a tenant and print it once: agent (MCP tools and reads; give "
                    + "it to an AI agent), service (the HTTP API), approver (a person who approves deletions and "
                    + "welcome emails).")
    static final class TokenCreate extends StoreCommand {
        @Option(names = "--tenant", required = true, description = "The tenant's id.")
        long tenantId;

        @Option(names = "--scope", required = true, description = "agent, service or approver.")
        String scope;

        @Option(names = "--expires-in", converter = DurationConverter.class,
                description = "Lifetime of the token (e.g. 12h, 30d); none if unset.")
        Duration expiresIn;

        @Option(names = "--label", description = "What the token is for (shown by 'tenant token list').")
        String label;

        @Override
        int run(Store store) {
            Scope s = Scope.parse(scope);
            Tenants tenants = new Tenants(store);
            if (tenants.get(tenantId).isEmpty()) {
                throw new IllegalArgumentException("there is no tenant " + tenantId);
            }
            return printIssued(spec, tenants.credentials().issue(tenantId, s, expiresIn, label));
        }
    }

    static int printIssued(CommandSpec spec, Credentials.Issued issued) {
        PrintWriter out = spec.commandLine().getOut();
        out.println("token " + issued.info().publicId() + " (scope " + issued.info().scope().sql()
                + (issued.info().expiresAt() == null ? ", no expiry" : ", expires " + issued.info().expiresAt()) + ")");
        out.println(issued.token());
        out.flush();
        spec.commandLine().getErr().println("Keep the token: it is shown only now and stored only hashed.");
        return 0;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List a tenant's tokens (never their secrets).")
    static final class TokenList extends StoreCommand {
        @Option(names = "--tenant", required = true, description = "The tenant's id.")
        long tenantId;

        @Override
        int run(Store store) {
            printList(spec, new Credentials(store).list(tenantId));
            return 0;
        }
    }

    /** The database id of the token {@code --id} names; a malformed one is a usage error (exit 2). */
    static Optional<Long> idOf(CommandSpec spec, Credentials credentials, String ref) {
        try {
            return credentials.idOf(ref);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--id: " + e.getMessage());
        }
    }

    static void printList(CommandSpec spec, java.util.List<Credentials.TokenInfo> tokens) {
        PrintWriter out = spec.commandLine().getOut();
        for (Credentials.TokenInfo t : tokens) {
            out.println(t.publicId() + "\t" + t.scope().sql() + "\t" + (t.revokedAt() != null ? "revoked " + t.revokedAt()
                    : t.expiresAt() != null ? "expires " + t.expiresAt() : "no expiry") + "\t"
                    + (t.label() == null ? "" : t.label()));
        }
        out.flush();
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = "Revoke one of a tenant's tokens: refused from then on (by running servers within "
                    + "a few seconds).")
    static final class TokenRevoke extends StoreCommand {
        @Option(names = "--tenant", required = true, description = "The tenant's id.")
        long tenantId;

        @Option(names = "--id", required = true, description = "The token's id, tok_... (from 'tenant token list').")
        String tokenId;

        @Override
        int run(Store store) {
            Credentials credentials = new Credentials(store);
            Optional<Long> id = idOf(spec, credentials, tokenId);
            if (id.isEmpty() || !credentials.revoke(id.get(), tenantId)) {
                spec.commandLine().getErr().println("tenant " + tenantId + " has no live token " + tokenId);
                return 1;
            }
            spec.commandLine().getOut().println("token " + tokenId + " revoked");
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
