package dev.converge.provisioning.site;

import dev.converge.provisioning.validation.InvalidField;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A request for a site, validated: the subdomain is a lower-case DNS label of 3-40 characters
 * (so every resource named after it fits its leaf's limits) and not a reserved name.
 */
public record SiteRequest(long leadId, String subdomain, String template, String plan) {
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{1,38}[a-z0-9])");
    private static final Pattern WORD = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");
    private static final Set<String> RESERVED = Set.of("www", "api", "admin", "mail", "smtp", "ftp", "root", "status");

    public SiteRequest {
        if (leadId <= 0) {
            throw new InvalidField("lead_id", "must be a positive integer");
        }
        if (subdomain == null) {
            throw new InvalidField("subdomain", "is required");
        }
        if (!subdomain.equals(subdomain.toLowerCase()) && LABEL.matcher(subdomain.toLowerCase()).matches()) {
            throw new InvalidField("subdomain", "must be lower-case");
        }
        if (!LABEL.matcher(subdomain).matches() || subdomain.contains("--")) {
            throw new InvalidField("subdomain", "must be a DNS label of 3-40 lower-case letters, digits and single hyphens, "
                    + "not starting or ending with a hyphen");
        }
        if (RESERVED.contains(subdomain)) {
            throw new InvalidField("subdomain", "is reserved");
        }
        template = template == null ? "starter" : template;
        plan = plan == null ? "trial" : plan;
        if (!WORD.matcher(template).matches()) {
            throw new InvalidField("template", "must be 1-40 lower-case letters, digits and hyphens");
        }
        if (!WORD.matcher(plan).matches()) {
            throw new InvalidField("plan", "must be 1-40 lower-case letters, digits and hyphens");
        }
    }
}
