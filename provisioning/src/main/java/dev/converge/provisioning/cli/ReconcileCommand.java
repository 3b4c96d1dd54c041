package dev.converge.provisioning.cli;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.store.Store;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code converge reconcile}: compares each leaf's inventory with the ledger and reports what no
 * ledger entry owns; with {@code --delete}, removes those that carry our tag (never anyone else's).
 */
@Command(name = "reconcile", mixinStandardHelpOptions = true,
        description = "Report resources the leaves hold that no ledger entry owns (orphans); --delete removes ours.")
public final class ReconcileCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--delete", description = "Delete orphans that carry our tag (converge:...).")
    boolean delete;

    @Override
    public Integer call() {
        int orphans = 0;
        try (Store store = service.database.open();
                Provisioning p = Provisioning.start(store, service.config(null),
                        NodeOptions.defaults().withConcurrency(0).withMaintenance(false, false))) {
            for (ResourceType type : p.resources().all()) {
                List<LeafResource> found;
                try {
                    found = p.engine().ledger().orphans(type);
                } catch (RuntimeException e) {
                    System.out.printf("%-20s cannot be listed now: %s%n", type.kind(), e.getMessage());
                    continue;
                }
                System.out.printf("%-20s %d orphan(s)%n", type.kind(), found.size());
                for (LeafResource r : found) {
                    orphans++;
                    boolean ours = r.tag() != null && r.tag().startsWith("converge:");
                    String action = "";
                    if (delete && ours) {
                        type.delete(r);
                        action = "  deleted";
                    }
                    System.out.printf("  %s  id=%s  tag=%s%s%n", r.naturalKey(), r.leafId(), r.tag(), action);
                }
            }
        }
        return orphans == 0 || delete ? 0 : 3;
    }
}
