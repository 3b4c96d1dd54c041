package dev.converge.queue.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The logging context of one delivery: every line a handler (or the engine on its behalf) logs
 * while it runs carries the job's id, type, queue, attempt and flow id, so that a JSON log can be
 * searched by any of them. Whatever the thread had under these keys before is put back after.
 */
public final class DeliveryMdc {
    public static final String JOB_ID = "job_id";
    public static final String JOB_TYPE = "job_type";
    public static final String QUEUE = "queue";
    public static final String ATTEMPT = "attempt";
    public static final String FLOW_ID = "flow_id";

    private final Map<String, String> previous = new LinkedHashMap<>();

    private DeliveryMdc() {
    }

    static DeliveryMdc put(LeasedJob job) {
        DeliveryMdc m = new DeliveryMdc();
        m.set(JOB_ID, Long.toString(job.id()));
        m.set(JOB_TYPE, job.kind());
        m.set(QUEUE, job.queue());
        m.set(ATTEMPT, Integer.toString(job.attempt()));
        m.set(FLOW_ID, job.flowId() == null ? null : Long.toString(job.flowId()));
        return m;
    }

    private void set(String key, String value) {
        previous.put(key, MDC.get(key));
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }

    void restore() {
        for (Map.Entry<String, String> e : previous.entrySet()) {
            if (e.getValue() == null) {
                MDC.remove(e.getKey());
            } else {
                MDC.put(e.getKey(), e.getValue());
            }
        }
    }
}
