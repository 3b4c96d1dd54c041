package dev.converge.provisioning.site;

/**
 * Where a site stands with its trial: {@code trial} until its tenant subscribes it
 * ({@code subscribed}) or its deadline passes and the expiry job takes it down ({@code expired}).
 * Both ends are reached only from {@code trial}, each by one conditional write, so a subscription
 * racing the expiry has exactly one outcome.
 */
public enum Subscription {
    TRIAL, SUBSCRIBED, EXPIRED;

    public String sql() {
        return name().toLowerCase();
    }

    public static Subscription fromSql(String s) {
        return valueOf(s.toUpperCase());
    }
}
