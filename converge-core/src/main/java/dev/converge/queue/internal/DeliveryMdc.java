package dev.converge.queue.internal;

import java.util.Map;
import org.slf4j.MDC;

/**
 * The logging context of one delivery: every line a handler (or the engine on its behalf) logs
 * while it runs carries the job's id, type, queue, attempt and flow id, so that a JSON log can be
 * searched by any of them; a handler may add its own keys for the delivery's lines. The thread's
 * whole context as it was before is put back after.
 */
public final class DeliveryMdc {
    public static final String JOB_ID = "job_id";
    public static final String JOB_TYPE = "job_type";
    public static final String QUEUE = "queue";
    public static final String ATTEMPT = "attempt";
    public static final String FLOW_ID = "flow_id";

    /** The thread's whole logging context before the delivery, put back after it. */
    private final Map<String, String> previous;

    private DeliveryMdc(Map<String, String> previous) {
        this.previous = previous;
    }

    static DeliveryMdc put(LeasedJob job) {
        DeliveryMdc m = new DeliveryMdc(MDC.getCopyOfContextMap());
        m.set(JOB_ID, Long.toString(job.id()));
        m.set(JOB_TYPE, job.kind());
        m.set(QUEUE, job.queue());
        m.set(ATTEMPT, Integer.toString(job.attempt()));
        if (job.flowId() != null) {
            MDC.put(FLOW_ID, Long.toString(job.flowId()));
        } else if (m.previous != null && m.previous.containsKey(FLOW_ID)) {
            MDC.remove(FLOW_ID); // the thread's context is the copy taken above: nothing to remove otherwise
        }
        return m;
    }

    private void set(String key, String value) {
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
    void restore() {
        if (previous == null || previous.isEmpty()) {
            MDC.clear();
        } else {
            MDC.setContextMap(previous);
        }
    }
}
