package dev.converge.provisioning.site;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a site as its users see them, and the transitions allowed between them. A site
 * is {@code active} only after its provisioning flow succeeded (never optimistically).
 */
public enum SiteState {
    PROVISIONING, ACTIVE, FAILED, NEEDS_ATTENTION, DELETING, DELETED;

    private static final Map<SiteState, Set<SiteState>> ALLOWED = Map.of(
            PROVISIONING, EnumSet.of(ACTIVE, FAILED, NEEDS_ATTENTION, DELETING),
            ACTIVE, EnumSet.of(DELETING),
            // a person retried its provisioning, after the failed attempt's compensation
            FAILED, EnumSet.of(DELETING, PROVISIONING),
            // a person retried its provisioning flow and the compensation then finished
            NEEDS_ATTENTION, EnumSet.of(DELETING, FAILED),
            DELETING, EnumSet.of(DELETED, NEEDS_ATTENTION),
            DELETED, EnumSet.noneOf(SiteState.class));

    public String sql() {
        return name().toLowerCase();
    }

    public static SiteState fromSql(String s) {
        return valueOf(s.toUpperCase());
    }

    public boolean canMoveTo(SiteState next) {
        return ALLOWED.get(this).contains(next);
    }

    public static Map<SiteState, Set<SiteState>> transitions() {
        return ALLOWED;
    }
}
