package dev.converge.queue.internal;

import java.util.Map;
import org.slf4j.MDC;

/**
 * The logging context of one delivery: every line a handler (or the engine on its behalf) logs
 * while it runs carries the job's id, type, queue, attempt and flow id, so that a JSON log can be
 * searched by any of them; a handler may add its own keys for the delivery's lines. The thread's
 * whole context as it was before is put back after. Every engine's first listener.
 */
public final class DeliveryMdc implements EngineObserver {
    public static final String JOB_ID = "job_id";
    public static final String JOB_TYPE = "job_type";
    public static final String QUEUE = "queue";
    public static final String ATTEMPT = "attempt";
    public static final String FLOW_ID = "flow_id";

    @Override
    public Activity running(LeasedJob job) {
        Map<String, String> previous = MDC.getCopyOfContextMap();
        set(JOB_ID, Long.toString(job.id()));
        set(JOB_TYPE, job.kind());
        set(QUEUE, job.queue());
        set(ATTEMPT, Integer.toString(job.attempt()));
        if (job.flowId() != null) {
            MDC.put(FLOW_ID, Long.toString(job.flowId()));
        } else if (previous != null && previous.containsKey(FLOW_ID)) {
            MDC.remove(FLOW_ID); // the thread's context is the copy taken above: nothing to remove otherwise
        }
        return (outcome, error) -> restore(previous);
    }

    private static void set(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }

    /**
     * Puts the thread's context back as it was before the delivery: what the handler added (a site,
     * a tenant) does not follow the thread into its next delivery.
     */
    private static void restore(Map<String, String> previous) {
        if (previous == null || previous.isEmpty()) {
            MDC.clear();
        } else {
            MDC.setContextMap(previous);
        }
    }
}
