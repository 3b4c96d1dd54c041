package dev.converge.provisioning.flow;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.ledger.ResourceType;
import dev.converge.provisioning.config.ProvisioningConfig;
import dev.converge.provisioning.leaf.GitHostDriver;
import dev.converge.provisioning.leaf.HostingDriver;
import dev.converge.provisioning.leaf.LicenseDriver;
import dev.converge.provisioning.leaf.PostgresDatabaseLeaf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The external resources a site is made of, their natural keys, and how safe each create is to
 * repeat: a repository (unique name), a hosting site (unique domain per server), a database
 * (unique name; only when a PostgreSQL leaf is configured) and a license (no uniqueness at the
 * leaf: an idempotency key derived from the ledger row, plus lookup by domain).
 */
public final class SiteResources {
    public static final String REPOSITORY = "git.repository";
    public static final String HOSTING = "hosting.site";
    public static final String DATABASE = "postgres.database";
    public static final String LICENSE = "license";

    private final ProvisioningConfig config;
    private final Map<String, DriverResourceType> types = new LinkedHashMap<>();
    private final HostingDriver hosting;

    /** How this installation tags a site's resources: the one function for steps, reports and reconcile. */
    public dev.converge.ledger.ResourceTags tags() {
        return config.tags();
    }

    public SiteResources(ProvisioningConfig config) {
        this.config = config;
        this.hosting = new HostingDriver(config.hosting(), config.tags());
        add(new DriverResourceType(REPOSITORY, RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT,
                new GitHostDriver(config.gitHost())));
        add(new DriverResourceType(HOSTING, RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT, hosting));
        if (config.database() != null) {
            if (config.database().namePrefix().length() + 40 > 63) {
                throw new IllegalArgumentException("database name prefix too long: prefix + a 40-character subdomain "
                        + "must fit PostgreSQL's 63-character names");
            }
            add(new DriverResourceType(DATABASE, RepetitionSafety.IDEMPOTENT_BY_CONSTRAINT,
                    new PostgresDatabaseLeaf(config.database())));
        }
        add(new DriverResourceType(LICENSE, RepetitionSafety.IDEMPOTENT_BY_KEY, new LicenseDriver(config.license())));
    }

    private void add(DriverResourceType t) {
        types.put(t.kind(), t);
    }

    public List<ResourceType> all() {
        return new ArrayList<>(types.values());
    }

    public ResourceType get(String kind) {
        ResourceType t = types.get(kind);
        if (t == null) {
            throw new IllegalArgumentException("no site resource of kind " + kind);
        }
        return t;
    }

    /** The kinds a new site gets, in creation order. */
    public List<String> planned() {
        return List.copyOf(types.keySet());
    }

    /** The natural key of a site's resource of this kind: what makes it unique at its leaf and in the ledger. */
    public String naturalKey(String kind, String subdomain) {
        return switch (kind) {
            case REPOSITORY -> subdomain;
            case HOSTING, LICENSE -> subdomain + "." + config.baseDomain();
            case DATABASE -> config.database().namePrefix() + subdomain.replace('-', '_');
            default -> throw new IllegalArgumentException("no site resource of kind " + kind);
        };
    }

    /**
     * Deploys a hosting site (naturally idempotent: deploying twice leaves one deployed site). Its
     * time is the deploy step's run time ({@code converge_jobs_run_seconds{type="site.deploy"}}).
     */
    public void deploy(String hostingSiteId) {
        hosting.deploy(hostingSiteId);
    }
}
