package dev.converge.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.options.DatabaseOptions;
import dev.converge.store.Store;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code converge migrate}: applies the engine's and the service's schema migrations, then exits. */
@Command(name = "migrate", mixinStandardHelpOptions = true, description = "Apply database migrations and exit.")
public final class MigrateCommand implements Callable<Integer> {
    @Mixin
    DatabaseOptions database = new DatabaseOptions();

    @Override
    public Integer call() {
        try (Store store = database.open()) {
            Provisioning.migrate(store);
            System.out.println("migrated " + store);
            return 0;
        }
    }
}
