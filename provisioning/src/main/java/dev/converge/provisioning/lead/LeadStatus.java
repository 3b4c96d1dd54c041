package dev.converge.provisioning.lead;

/** A lead is a {@code lead} until one of its sites is confirmed active; then a {@code customer}. */
public enum LeadStatus {
    LEAD, CUSTOMER;

    public String sql() {
        return name().toLowerCase();
    }

    public static LeadStatus fromSql(String s) {
        return valueOf(s.toUpperCase());
    }
}
