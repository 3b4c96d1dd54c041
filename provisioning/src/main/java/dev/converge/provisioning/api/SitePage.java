package dev.converge.provisioning.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteState;
import dev.converge.provisioning.site.Sites;
import dev.converge.provisioning.validation.PublicId;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A page of {@code GET /v1/sites}: keyset pagination by site id. The cursor is opaque to clients
 * (base64url of a versioned position: the last site's public id, so it reveals no count) and can
 * change without breaking them; one that does not decode is a 400 naming {@code cursor}. A cursor
 * of the previous release (the database id) is still read.
 */
record SitePage(@JsonProperty("items") List<Item> items, @JsonProperty("next_cursor") String nextCursor) {
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;
    private static final String LEGACY_CURSOR_PREFIX = "s1:";
    private static final String CURSOR_PREFIX = "s2:";

    /** One site in a list: enough to choose one and follow its link. */
    record Item(@JsonProperty("site_id") String siteId, @JsonProperty("state") String state,
            @JsonProperty("subdomain") String subdomain, @JsonProperty("lead_id") String leadId,
            @JsonProperty("template") String template, @JsonProperty("plan") String plan,
            @JsonProperty("expected_url") String expectedUrl, @JsonProperty("created_at") String createdAt,
            @JsonProperty("updated_at") String updatedAt, @JsonProperty("links") Map<String, String> links) {
    }

    /** The query parameters, validated. */
    record Query(SiteState state, int limit, PublicId.Ref after) {
        static Query of(Context ctx) {
            return new Query(state(ctx.queryParam("state")), limit(ctx.queryParam("limit")), after(ctx.queryParam("cursor")));
        }

        private static SiteState state(String raw) {
            if (raw == null || raw.isEmpty()) {
                return null;
            }
            for (SiteState s : SiteState.values()) {
                if (s.sql().equals(raw)) {
                    return s;
                }
            }
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "state", "must be one of "
                    + Arrays.stream(SiteState.values()).map(SiteState::sql).toList());
        }

        private static int limit(String raw) {
            if (raw == null || raw.isEmpty()) {
                return DEFAULT_LIMIT;
            }
            try {
                int n = Integer.parseInt(raw);
                if (n >= 1 && n <= MAX_LIMIT) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "limit", "must be an integer from 1 to " + MAX_LIMIT);
        }

        private static PublicId.Ref after(String raw) {
            if (raw == null || raw.isEmpty()) {
                return null;
            }
            try {
                String decoded = new String(Base64.getUrlDecoder().decode(raw), StandardCharsets.UTF_8);
                if (decoded.startsWith(CURSOR_PREFIX) && PublicId.SITE.matches(decoded.substring(CURSOR_PREFIX.length()))) {
                    return new PublicId.Ref(decoded.substring(CURSOR_PREFIX.length()), 0);
                }
                if (decoded.startsWith(LEGACY_CURSOR_PREFIX)) {
                    long after = Long.parseLong(decoded.substring(LEGACY_CURSOR_PREFIX.length()));
                    if (after > 0) {
                        return new PublicId.Ref(null, after);
                    }
                }
            } catch (IllegalArgumentException e) {
                // bad base64 or number (NumberFormatException is one): answered below
            }
            throw ApiProblem.invalid(ProblemType.INVALID_PARAMETER, "cursor", "is not a cursor this API returned");
        }
    }

    /** @param rows up to {@code limit + 1} sites: one more than the page says whether there is a next page */
    static SitePage of(List<Site> rows, int limit, Sites sites) {
        List<Site> page = rows.size() > limit ? rows.subList(0, limit) : rows;
        String next = rows.size() > limit ? cursor(page.get(page.size() - 1).publicId()) : null;
        return new SitePage(page.stream().map(s -> item(s, sites)).toList(), next);
    }

    static String cursor(String afterPublicId) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((CURSOR_PREFIX + afterPublicId).getBytes(StandardCharsets.UTF_8));
    }

    private static Item item(Site s, Sites sites) {
        return new Item(s.publicId(), s.state().sql(), s.subdomain(), s.leadPublicId(), s.template(), s.plan(),
                sites.receipt(s).expectedUrl(), s.createdAt().toString(), s.updatedAt().toString(),
                Map.of("self", SiteRoutes.COLLECTION + "/" + s.publicId()));
    }
}
