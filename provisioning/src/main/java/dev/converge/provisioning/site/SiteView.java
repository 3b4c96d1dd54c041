package dev.converge.provisioning.site;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Everything {@code GET /v1/sites/{id}} shows: state, resources as the ledger holds them, flow
 * history, receipt. A failure is shown as a stable code and a short safe message ({@link SiteFailure}).
 */
public record SiteView(
        @JsonProperty("site_id") String siteId,
        @JsonProperty("state") String state,
        @JsonProperty("subdomain") String subdomain,
        @JsonProperty("lead_id") String leadId,
        @JsonProperty("failure") String failure,
        @JsonProperty("failure_code") String failureCode,
        @JsonProperty("resources") List<Resource> resources,
        @JsonProperty("history") List<HistoryEntry> history,
        @JsonProperty("receipt") Receipt receipt) {

    /** One external resource of the site, as the ledger records it. */
    public record Resource(@JsonProperty("kind") String kind, @JsonProperty("natural_key") String naturalKey,
            @JsonProperty("state") String state, @JsonProperty("leaf_id") String leafId) {
    }

    /** One transition of one of the site's flows. */
    public record HistoryEntry(@JsonProperty("flow") String flow, @JsonProperty("at") String at,
            @JsonProperty("from") String from, @JsonProperty("to") String to, @JsonProperty("reason") String reason) {
    }
}
