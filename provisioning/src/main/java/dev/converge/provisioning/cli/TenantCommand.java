package dev.converge.provisioning.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.tenant.Tenants;
import dev.converge.store.Store;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code converge tenant create NAME}: a tenant and its API token, printed once. */
@Command(name = "tenant", mixinStandardHelpOptions = true, description = "Manage tenants.",
        subcommands = TenantCommand.Create.class)
public final class TenantCommand {

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create a tenant and print its API token. The token is shown this once and stored only hashed.")
    static final class Create implements Callable<Integer> {
        @Mixin
        DatabaseOptions database = new DatabaseOptions();

        @Parameters(index = "0", description = "The tenant's name.")
        String name;

        @Override
        public Integer call() {
            try (Store store = database.open()) {
                Provisioning.migrate(store);
                Tenants.Created created = new Tenants(store).create(name);
                System.out.println("tenant " + created.tenant().id() + " (" + created.tenant().name() + ")");
                System.out.println("token  " + created.token());
                System.err.println("Keep the token: it is shown only now. Use it as 'Authorization: Bearer <token>'.");
                return 0;
            }
        }
    }
}
