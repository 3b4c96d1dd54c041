package dev.converge.provisioning.approval;

/** What a person's one-time approval permits. Stored by its {@link #sql()} name in {@code pv_approval.action}. */
public enum ApprovalAction {
    /** Delete one site: the MCP tool {@code delete_site} refuses without it. */
    DELETE_SITE;

    public String sql() {
        return name().toLowerCase();
    }
}
