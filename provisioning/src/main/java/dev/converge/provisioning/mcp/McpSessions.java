package dev.converge.provisioning.mcp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which tenant each MCP session belongs to: a session id is honoured only for the tenant that
 * opened it (for anyone else it does not exist), a tenant holds at most {@code perTenant} sessions
 * at once, and a session unused for {@code idle} is refused from then on. A session is bound when
 * its initialize answer names it, or, if the transport named it after the request returned, on its
 * first use: the id is random and only its initializer has seen it. An expired id stays refused.
 */
final class McpSessions {
    private static final long FORGET_NANOS = Duration.ofDays(1).toNanos();

    private record Owner(long tenantId, long lastUsedNanos, boolean expired) {
    }

    private final int perTenant;
    private final long idleNanos;
    private final Map<String, Owner> sessions = new ConcurrentHashMap<>();

    McpSessions(int perTenant, Duration idle) {
        this.perTenant = perTenant;
        this.idleNanos = idle.toNanos();
    }

    /** True if the session is this tenant's (or new, and now bound to it) and still live; it is then marked used. */
    boolean use(String sessionId, long tenantId) {
        long now = System.nanoTime();
        Owner o = sessions.computeIfAbsent(sessionId, id -> new Owner(tenantId, now, false));
        if (o.tenantId() != tenantId || o.expired()) {
            return false;
        }
        if (now - o.lastUsedNanos() > idleNanos) {
            sessions.put(sessionId, new Owner(tenantId, now, true));
            return false;
        }
        sessions.replace(sessionId, o, new Owner(tenantId, now, false));
        return true;
    }

    /** True if the tenant may open one more session. */
    boolean mayOpen(long tenantId) {
        long now = System.nanoTime();
        sessions.replaceAll((id, o) -> !o.expired() && now - o.lastUsedNanos() > idleNanos
                ? new Owner(o.tenantId(), now, true) : o);
        sessions.values().removeIf(o -> o.expired() && now - o.lastUsedNanos() > FORGET_NANOS);
        return sessions.values().stream().filter(o -> o.tenantId() == tenantId && !o.expired()).count() < perTenant;
    }

    void bind(String sessionId, long tenantId) {
        sessions.putIfAbsent(sessionId, new Owner(tenantId, System.nanoTime(), false));
    }

    /** A session closed by its client: refused from then on, and no longer counted. */
    void end(String sessionId) {
        sessions.computeIfPresent(sessionId, (id, o) -> new Owner(o.tenantId(), System.nanoTime(), true));
    }
}
