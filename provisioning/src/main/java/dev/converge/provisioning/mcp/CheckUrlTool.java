package dev.converge.provisioning.mcp;

import dev.converge.ledger.RepetitionSafety;
import dev.converge.provisioning.service.ProvisioningService;
import dev.converge.provisioning.site.Site;
import dev.converge.provisioning.site.SiteRequest;
import dev.converge.provisioning.validation.InvalidField;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code check_url}: read-only. Whether a subdomain is free (asked of our own store, the same
 * primary key {@code create_site} claims) and whether one of our sites' URLs answers (see
 * {@link UrlProbe} for which URLs it will contact).
 */
final class CheckUrlTool {
    private final ProvisioningService service;
    private final UrlProbe probe;

    private CheckUrlTool(ProvisioningService service, UrlProbe probe) {
        this.service = service;
        this.probe = probe;
    }

    static SiteTool declaration(ProvisioningService service, UrlProbe probe) {
        CheckUrlTool t = new CheckUrlTool(service, probe);
        String domain = service.config().baseDomain();
        return new SiteTool("check_url", "Check a URL or subdomain",
                "Checks whether a subdomain is free for a new site, and/or whether a site URL (https://<subdomain>."
                        + domain + ") answers. Give subdomain, url, or both. Only this service's own site URLs are "
                        + "contacted, with one HEAD request of at most a few seconds; redirects are reported, not followed.",
                RepetitionSafety.READ_ONLY, true,
                new ToolArgs(List.of(
                        ToolArg.string("subdomain", "A subdomain to check is free, e.g. ada-shop.").range(1, 63),
                        ToolArg.string("url", "A site URL to check answers, e.g. https://ada-shop." + domain + "/")
                                .range(1, 2000))),
                null, t::handle);
    }

    private ToolResult handle(SiteTool.Call call) {
        String subdomain = call.args().string("subdomain");
        String url = call.args().string("url");
        if (subdomain == null && url == null) {
            throw new InvalidField("subdomain", "or url is required");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        if (subdomain != null) {
            out.put("subdomain", subdomain(call.tenant().id(), subdomain));
        }
        if (url != null) {
            out.put("url", probe.check(url));
        }
        return ToolResult.ok(out);
    }

    private Map<String, Object> subdomain(long tenantId, String subdomain) {
        new SiteRequest(1, subdomain, null, null); // the same rules create_site applies; throws InvalidField("subdomain")
        Optional<Long> holder = service.sites().subdomainHolder(tenantId, subdomain);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("subdomain", subdomain);
        out.put("free", holder.isEmpty());
        out.put("expected_url", "https://" + subdomain + "." + service.config().baseDomain());
        if (holder.isEmpty()) {
            out.put("detail", "Free now. create_site claims it atomically; if someone takes it first, create_site says so.");
            return out;
        }
        Optional<Site> own = service.sites().get(tenantId, holder.get());
        if (own.isPresent()) {
            out.put("your_site_id", own.get().publicId());
            out.put("detail", "Taken by your site " + own.get().publicId() + " (lead " + own.get().leadPublicId() + ", "
                    + own.get().state().sql() + ").");
        } else {
            out.put("detail", "Taken by another site. Choose another subdomain.");
        }
        return out;
    }
}
