package dev.converge.provisioning.mcp;

import dev.converge.provisioning.InvalidField;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Whether a URL answers, asked with one bounded HEAD request. An agent chooses the URL, so this is
 * a server-side request forgery surface: only the service's own sites (hosts under the configured
 * base domain, resolving to public addresses) are asked, plus loopback when explicitly allowed (a
 * demo or test whose sites run locally). Redirects are reported, not followed; everything is
 * bounded by {@code timeout}.
 */
public final class UrlProbe {
    private final String baseDomain;
    private final boolean allowLoopback;
    private final Duration timeout;
    private final HttpClient http;

    public UrlProbe(String baseDomain, boolean allowLoopback, Duration timeout) {
        this.baseDomain = baseDomain.toLowerCase(Locale.ROOT);
        this.allowLoopback = allowLoopback;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER)
                .proxy(HttpClient.Builder.NO_PROXY).build();
    }

    public Map<String, Object> check(String url) {
        URI uri = parse(url);
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        boolean ours = host.equals(baseDomain) || host.endsWith("." + baseDomain);
        if (!ours && !(allowLoopback && isLoopbackName(host))) {
            throw new ToolRefusal("url_not_allowed", "check_url only checks this service's own sites (hosts under "
                    + baseDomain + ")" + (allowLoopback ? " and loopback" : "") + "; " + host + " is not one.",
                    "Check a site URL such as https://<subdomain>." + baseDomain + ", or check a subdomain instead.")
                    .with("url", url);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("url", url);
        InetAddress[] addresses;
        try {
            addresses = resolve(host);
        } catch (UnknownHostException e) {
            return unreachable(out, "the host name does not resolve (yet)");
        }
        for (InetAddress a : addresses) {
            if (!(allowLoopback && a.isLoopbackAddress()) && !isPublic(a)) {
                throw new ToolRefusal("url_not_allowed", host + " resolves to a private or local address, which "
                        + "check_url does not contact.", "Nothing to do: the site is not publicly reachable at this "
                        + "address.").with("url", url);
            }
        }
        HttpRequest head = HttpRequest.newBuilder(uri).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .timeout(timeout).header("User-Agent", "converge-check-url").build();
        try {
            HttpResponse<Void> r = http.sendAsync(head, HttpResponse.BodyHandlers.discarding())
                    .get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
            out.put("reachable", true);
            out.put("status", r.statusCode());
            r.headers().firstValue("location").ifPresent(l -> out.put("redirects_to", l));
            out.put("detail", "The URL answered HTTP " + r.statusCode() + ".");
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unreachable(out, "the check was interrupted");
        } catch (Exception e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return unreachable(out, "no answer within " + timeout.toMillis() + " ms (" + cause.getClass().getSimpleName()
                    + ")");
        }
    }

    private static Map<String, Object> unreachable(Map<String, Object> out, String why) {
        out.put("reachable", false);
        out.put("status", null);
        out.put("detail", "Not reachable: " + why + ".");
        return out;
    }

    private static URI parse(String url) {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw new InvalidField("url", "is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new InvalidField("url", "must be an http or https URL");
        }
        if (uri.getHost() == null) {
            throw new InvalidField("url", "must name a host");
        }
        if (uri.getRawUserInfo() != null) {
            throw new InvalidField("url", "must not carry credentials");
        }
        return uri;
    }

    /** Resolves with the same bound as the request, so a slow resolver cannot hold the call. */
    private InetAddress[] resolve(String host) throws UnknownHostException {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return InetAddress.getAllByName(host);
                } catch (UnknownHostException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnknownHostException(host);
        } catch (Exception e) {
            throw new UnknownHostException(host);
        }
    }

    private static boolean isLoopbackName(String host) {
        return host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")
                || host.matches("127(\\.\\d{1,3}){3}");
    }

    /** Not loopback, link-local, private (RFC 1918 / unique-local), wildcard, multicast or carrier-grade NAT. */
    static boolean isPublic(InetAddress a) {
        if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress() || a.isAnyLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) {
            return (b[0] & 0xfe) != 0xfc; // fc00::/7 unique-local
        }
        return !((b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) && (b[0] & 0xff) != 0; // 100.64/10, 0/8
    }
}
