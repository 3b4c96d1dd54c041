package dev.converge.provisioning.api;

import dev.converge.provisioning.trace.ServiceTracing;
import io.javalin.config.RoutesConfig;

/**
 * A server span per request to our API when tracing is on, continuing the caller's W3C
 * {@code traceparent}; current while the request is handled, so the jobs and flows it enqueues
 * carry the trace on.
 */
final class RequestTracing {
    private static final String ATTRIBUTE = "converge.trace.request";

    private RequestTracing() {
    }

    static void register(RoutesConfig routes) {
        routes.before(ctx -> ctx.attribute(ATTRIBUTE, ServiceTracing.serverSpan(HttpMetrics.method(ctx), ctx.path(), ctx::header)));
        routes.after(ctx -> {
            ServiceTracing.Request r = ctx.attribute(ATTRIBUTE);
            if (r != null) {
                ctx.attribute(ATTRIBUTE, null);
                r.end(ctx.statusCode());
            }
        });
    }
}
