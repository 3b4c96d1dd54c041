package dev.converge.provisioning.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Times every request as {@code converge_http_requests} tagged by method, route and status, each
 * from a closed set, never a value taken verbatim from the request: the route is the path template
 * ({@code /v1/sites/{id}}) or {@value #UNMATCHED} (raw paths would make one time series per site id,
 * and scanners one per guess), the method one of HTTP's own or {@value #OTHER} (a client may send
 * any token as a method, thousands of characters long), the status a number the server chose.
 */
final class HttpMetrics {
    static final String NAME = "converge_http_requests";
    static final String UNMATCHED = "unmatched";
    static final String OTHER = "other";
    private static final java.util.Set<String> METHODS = java.util.Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD",
            "OPTIONS", "TRACE", "CONNECT");

    private final MeterRegistry meters;

    HttpMetrics(MeterRegistry meters) {
        this.meters = meters;
    }

    /** A request logger: called once per request, after its status is final. */
    void record(Context ctx, Float millis) {
        long nanos = millis == null ? 0 : (long) (millis * 1_000_000.0);
        Timer.builder(NAME).description("HTTP requests served by the API")
                .tag("method", method(ctx)).tag("route", route(ctx)).tag("status", Integer.toString(ctx.statusCode()))
                .register(meters).record(Duration.ofNanos(nanos));
    }

    /** The request's method if it is one of HTTP's, else {@value #OTHER}. */
    static String method(Context ctx) {
        String name = ctx.req().getMethod();
        return name != null && METHODS.contains(name) ? name : OTHER;
    }

    /** The template of the route that matched, or {@value #UNMATCHED}. */
    static String route(Context ctx) {
        try {
            Endpoint matched = ctx.endpoints().matchedHttpEndpoint();
            return matched == null ? UNMATCHED : matched.path;
        } catch (RuntimeException e) {
            return UNMATCHED;
        }
    }
}
