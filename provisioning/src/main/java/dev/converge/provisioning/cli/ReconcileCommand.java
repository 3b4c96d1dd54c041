package dev.converge.provisioning.cli;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.site.Site;
import dev.converge.store.Store;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code converge reconcile}: compares each leaf's inventory with the ledger and reports what no
 * ledger entry owns; with {@code --delete}, removes those that carry the exact tag of one of this
 * store's sites (never anyone else's, nor another installation's).
 */
@Command(name = "reconcile", mixinStandardHelpOptions = true,
        description = "Report resources the leaves hold that no ledger entry owns (orphans); --delete removes ours.")
public final class ReconcileCommand implements Callable<Integer> {
    @Mixin
    ServiceOptions service = new ServiceOptions();

    @Option(names = "--delete", description = "Delete orphans that carry the tag of one of this store's sites.")
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
                    boolean ours = deletable(r, id -> siteExists(store, id));
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

    /**
     * An orphan may be deleted only if its tag is exactly the tag of a site of this installation's
     * store: a tag that merely starts with {@code converge:} may be another installation's (sharing
     * the leaf account) or anyone's imitation of ours.
     */
    static boolean deletable(LeafResource r, java.util.function.LongPredicate siteExists) {
        long id = Site.idInTag(r.tag());
        return id > 0 && siteExists.test(id);
    }

    private static boolean siteExists(Store store, long id) {
        return store.withConnection(c -> {
            try (var ps = c.prepareStatement("SELECT COUNT(*) FROM pv_site WHERE id = ?")) {
                ps.setLong(1, id);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) > 0;
                }
            }
        });
    }
}
