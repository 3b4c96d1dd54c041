package dev.converge.provisioning.mcp;

import dev.converge.provisioning.validation.InvalidField;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a URL answers, asked with one bounded HEAD request. An agent chooses the URL, so this is
 * a server-side request forgery surface, closed this way: only hosts under the configured base
 * domain, on ports 80 and 443; the name is resolved once, on a small executor of its own, and every
 * address it resolves to must be public ({@link AddressPolicy}); the request then goes to the
 * address that was vetted (never resolved again, so a name that changes its answer between the
 * check and the connection reaches nothing new), with the original name as Host and TLS SNI and
 * the certificate checked against it. Redirects are reported, not followed. A refusal says the same
 * whether the name does not resolve or resolves somewhere we do not go, so it reveals nothing of
 * what a name resolves to. Loopback is allowed only when configured (demos and tests).
 */
public final class UrlProbe {
    private static final Logger log = LoggerFactory.getLogger(UrlProbe.class);
    private static final String NOT_REACHABLE = "no public address of this host answers";

    private final String baseDomain;
    private final boolean allowLoopback;
    private final Duration timeout;
    private final ThreadPoolExecutor lookups;
    private final Resolver resolver;

    /** Name resolution (the platform's; tests give their own). */
    @FunctionalInterface
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    public UrlProbe(String baseDomain, boolean allowLoopback, Duration timeout) {
        this(baseDomain, allowLoopback, timeout, InetAddress::getAllByName);
    }

    UrlProbe(String baseDomain, boolean allowLoopback, Duration timeout, Resolver resolver) {
        this.resolver = resolver;
        this.baseDomain = baseDomain.toLowerCase(Locale.ROOT);
        this.allowLoopback = allowLoopback;
        this.timeout = timeout;
        // a few lookups at a time, a short queue, and a refusal beyond: a slow resolver cannot pile up threads
        this.lookups = new ThreadPoolExecutor(2, 4, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(16), r -> {
            Thread t = new Thread(r, "converge-check-url-lookup");
            t.setDaemon(true);
            return t;
        });
        lookups.allowCoreThreadTimeOut(true);
    }

    public Map<String, Object> check(String url) {
        URI uri = parse(url);
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        boolean https = uri.getScheme().equalsIgnoreCase("https");
        int port = uri.getPort() < 0 ? (https ? 443 : 80) : uri.getPort();
        boolean ours = host.equals(baseDomain) || host.endsWith("." + baseDomain);
        boolean loopbackName = allowLoopback && isLoopbackName(host);
        if (!ours && !loopbackName) {
            throw new ToolRefusal("url_not_allowed", "check_url only checks this service's own sites (hosts under "
                    + baseDomain + ")" + (allowLoopback ? " and loopback" : "") + "; " + host + " is not one.",
                    "Check a site URL such as https://<subdomain>." + baseDomain + ", or check a subdomain instead.")
                    .with("url", url);
        }
        if (!loopbackName && port != 80 && port != 443) {
            throw new ToolRefusal("url_not_allowed", "check_url only contacts ports 80 and 443.",
                    "Check the site's URL without a port.").with("url", url);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("url", url);
        InetAddress target = null;
        try {
            for (InetAddress a : resolve(host)) {
                boolean allowed = AddressPolicy.isPublic(a) || (allowLoopback && a.isLoopbackAddress());
                if (!allowed) {
                    log.info("check_url: {} resolves to an address it does not contact", host);
                    return unreachable(out, NOT_REACHABLE);
                }
                target = target == null ? a : target;
            }
        } catch (UnknownHostException e) {
            return unreachable(out, NOT_REACHABLE);
        } catch (RejectedExecutionException e) {
            return unreachable(out, "too many checks are running; try again in a moment");
        }
        if (target == null) {
            return unreachable(out, NOT_REACHABLE);
        }
        try {
            Head head = head(target, port, host, https, uri);
            out.put("reachable", true);
            out.put("status", head.status());
            if (head.location() != null) {
                out.put("redirects_to", head.location());
            }
            out.put("detail", "The URL answered HTTP " + head.status() + ".");
            return out;
        } catch (IOException | RuntimeException e) {
            log.info("check_url: {} did not answer: {}", host, e.toString());
            return unreachable(out, "no answer within " + timeout.toMillis() + " ms");
        }
    }

    private record Head(int status, String location) {
    }

    /** One HEAD over a socket to the vetted address; TLS with the original name as SNI and for the certificate. */
    private Head head(InetAddress address, int port, String host, boolean https, URI uri) throws IOException {
        int millis = (int) timeout.toMillis();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(address, port), millis);
            plain.setSoTimeout(millis);
            Socket socket = plain;
            if (https) {
                SSLSocket tls = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault())
                        .createSocket(plain, host, port, true);
                SSLParameters p = tls.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                if (!isLiteral(host)) {
                    p.setServerNames(java.util.List.of(new SNIHostName(host)));
                }
                tls.setSSLParameters(p);
                tls.startHandshake();
                socket = tls;
            }
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) {
                path += "?" + uri.getRawQuery();
            }
            String hostHeader = (host.contains(":") ? "[" + host + "]" : host)
                    + (port == (https ? 443 : 80) ? "" : ":" + port);
            OutputStream o = socket.getOutputStream();
            o.write(("HEAD " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nUser-Agent: converge-check-url\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            String status = in.readLine();
            if (status == null || !status.startsWith("HTTP/1.") || status.length() < 12) {
                throw new IOException("not an HTTP answer");
            }
            int code = Integer.parseInt(status.substring(9, 12));
            String location = null;
            for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("headers too slow");
                }
                if (line.regionMatches(true, 0, "Location:", 0, 9)) {
                    location = line.substring(9).strip();
                }
            }
            return new Head(code, location);
        } catch (NumberFormatException e) {
            throw new IOException("not an HTTP status", e);
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

    /** Resolves on the lookup executor, with the same bound as the request. */
    private InetAddress[] resolve(String host) throws UnknownHostException {
        Future<InetAddress[]> f = lookups.submit(() -> resolver.resolve(host));
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnknownHostException(host);
        } catch (ExecutionException | TimeoutException e) {
            f.cancel(true);
            throw new UnknownHostException(host);
        }
    }

    private static boolean isLiteral(String host) {
        return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    private static boolean isLoopbackName(String host) {
        return host.equals("localhost") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1")
                || host.matches("127(\\.\\d{1,3}){3}");
    }

    /** Not in any special-purpose block (see {@link AddressPolicy}). */
    static boolean isPublic(InetAddress a) {
        return AddressPolicy.isPublic(a);
    }
}
