package dev.converge.cli;

import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.NodeOptions;
import dev.converge.provisioning.Provisioning;
import dev.converge.provisioning.options.ServiceOptions;
import dev.converge.provisioning.site.Site;
import dev.converge.store.Store;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code converge reconcile}: compares each leaf's inventory with the ledger and reports what no
 * ledger entry owns and carries this installation's tag ({@code --installation}); with
 * {@code --delete}, removes those that carry the exact tag of one of this store's sites. Resources
 * of another installation sharing the leaf account, old-format tags and anyone else's are only
 * counted, never listed as ours nor deleted.
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
        try (Store store = service.database.open();
                Provisioning p = Provisioning.start(store, service.config(),
                        NodeOptions.defaults().withConcurrency(0).withoutMaintenance())) {
            int orphans = reconcile(p, delete, id -> siteExists(store, id), System.out);
            return orphans == 0 || delete ? 0 : 3;
        }
    }

    /** Reports (and with {@code delete} removes) this installation's orphans; returns how many it listed. */
    static int reconcile(Provisioning p, boolean delete, java.util.function.LongPredicate siteExists,
            java.io.PrintStream out) {
        int orphans = 0;
        var tags = p.resources().tags();
        for (ResourceType type : p.resources().all()) {
            List<LeafResource> found;
            try {
                found = p.engine().ledger().orphans(type);
            } catch (RuntimeException e) {
                out.printf("%-20s cannot be listed now: %s%n", type.kind(), e.getMessage());
                continue;
            }
            List<LeafResource> mine = found.stream().filter(r -> tags.isOurs(r.tag())).toList();
            out.printf("%-20s %d orphan(s) of installation %s; %d other unowned resource(s) left alone%n",
                    type.kind(), mine.size(), tags.installation(), found.size() - mine.size());
            for (LeafResource r : mine) {
                orphans++;
                String action = "";
                if (delete && deletable(tags, r, siteExists)) {
                    type.delete(r);
                    action = "  deleted";
                }
                out.printf("  %s  id=%s  tag=%s%s%n", r.naturalKey(), r.leafId(), r.tag(), action);
            }
        }
        return orphans;
    }

    /**
     * An orphan may be deleted only if its tag is exactly the tag of a site of this installation's
     * store: a tag that merely starts with {@code converge:} may be another installation's (sharing
     * the leaf account), an old-format one, or anyone's imitation of ours.
     */
    static boolean deletable(dev.converge.ledger.ResourceTags tags, LeafResource r,
            java.util.function.LongPredicate siteExists) {
        long id = Site.idInTag(tags, r.tag());
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
