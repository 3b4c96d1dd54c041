package dev.converge.cli;

import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.options.DatabaseOptions;
import dev.converge.store.Store;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that works on the service's database: it takes the database options, opens the store,
 * brings its schema up to date and closes it when {@link #run} is done.
 */
abstract class StoreCommand implements Callable<Integer> {
    @Mixin
    DatabaseOptions database = new DatabaseOptions();

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        try (Store store = database.open()) {
            Provisioning.migrate(store);
            return run(store);
        }
    }

    /** The command's work on a migrated store; returns the exit code. */
    abstract int run(Store store);

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
