package dev.converge.provisioning.api;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Times every request as {@code converge_http_requests} tagged by method, route and status. The
 * route is the path template ({@code /v1/sites/{id}}), never the raw path: raw paths would make
 * one time series per site id, and unmatched paths (scanners) one per guess.
 */
final class HttpMetrics {
    static final String NAME = "converge_http_requests";
    static final String UNMATCHED = "unmatched";

    private final MeterRegistry meters;

    HttpMetrics(MeterRegistry meters) {
        this.meters = meters;
    }

    /** A request logger: called once per request, after its status is final. */
    void record(Context ctx, Float millis) {
        long nanos = millis == null ? 0 : (long) (millis * 1_000_000.0);
        Timer.builder(NAME).description("HTTP requests served by the API")
                .tag("method", ctx.method().name()).tag("route", route(ctx)).tag("status", Integer.toString(ctx.statusCode()))
                .register(meters).record(Duration.ofNanos(nanos));
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
