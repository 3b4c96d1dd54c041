package dev.converge.cli;

import dev.converge.provisioning.access.Credentials;
import dev.converge.provisioning.options.DurationConverter;
import dev.converge.store.Store;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code converge operator token create|list|revoke}: the operator credential, which belongs to no
 * tenant and opens the ops surface ({@code /metrics}, {@code /v1/orphans}) and nothing of a tenant's.
 */
@Command(name = "operator", mixinStandardHelpOptions = true, description = "Manage the operators' tokens.",
        subcommands = {OperatorCommand.Token.class})
public final class OperatorCommand {
    @Command(name = "token", mixinStandardHelpOptions = true, description = "Operator tokens.",
            subcommands = {Create.class, ListTokens.class, Revoke.class})
    static final class Token {
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Issue an operator token and print it once (metrics, orphans; no tenant's data).")
    static final class Create extends StoreCommand {
        @Option(names = "--expires-in", converter = DurationConverter.class,
                description = "Lifetime of the token (e.g. 12h, 30d); none if unset.")
        Duration expiresIn;

        @Option(names = "--label", description = "What the token is for.")
        String label;

        @Override
        int run(Store store) {
            return TenantCommand.printIssued(spec, new Credentials(store).issueOperator(expiresIn, label));
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the operator tokens.")
    static final class ListTokens extends StoreCommand {
        @Override
        int run(Store store) {
            TenantCommand.printList(spec, new Credentials(store).list(null));
            return 0;
        }
    }

    @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke an operator token.")
    static final class Revoke extends StoreCommand {
        @Option(names = "--id", required = true, description = "The token's id, tok_... (from 'operator token list').")
        String tokenId;

        @Override
        int run(Store store) {
            Credentials credentials = new Credentials(store);
            java.util.Optional<Long> id = TenantCommand.idOf(spec, credentials, tokenId);
            if (id.isEmpty() || !credentials.revoke(id.get(), null)) {
                spec.commandLine().getErr().println("there is no live operator token " + tokenId);
                return 1;
            }
            spec.commandLine().getOut().println("token " + tokenId + " revoked");
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
