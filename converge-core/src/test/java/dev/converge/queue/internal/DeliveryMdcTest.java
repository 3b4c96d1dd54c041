package dev.converge.queue.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * A delivery's lines carry its job's id, type, queue, attempt and (only when it has one) flow id, whatever
 * the thread's context held before; after the delivery the thread's context is exactly what it was.
 */
class DeliveryMdcTest {

    private static LeasedJob job(Long flowId) {
        return new LeasedJob(42, "mail", "mail.send", "{}", 3, 2, 5, null, null, null, null, flowId,
                Instant.EPOCH, Instant.EPOCH);
    }

    @AfterEach
    void clear() {
        MDC.clear();
    }

    @Test
    void onAnEmptyContextTheDeliveryKeysAreSetAndAllRemovedAfter() {
        EngineObserver.Activity m = new DeliveryMdc().running(job(null));
        assertThat(MDC.getCopyOfContextMap()).containsExactlyInAnyOrderEntriesOf(Map.of("job_id", "42",
                "job_type", "mail.send", "queue", "mail", "attempt", "2"));
        MDC.put("site", "s-1"); // a handler's own key
        m.end("ok", null);
        assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
    }

    @Test
    void aFlowIdLeftFromTheThreadsContextIsNotShownForAJobOutsideAFlowAndComesBackAfter() {
        MDC.put("flow_id", "7");
        MDC.put("request", "r-9");
        EngineObserver.Activity m = new DeliveryMdc().running(job(null));
        assertThat(MDC.get("flow_id")).isNull();
        assertThat(MDC.get("request")).isEqualTo("r-9");
        assertThat(MDC.get("job_id")).isEqualTo("42");
        m.end("ok", null);
        assertThat(MDC.getCopyOfContextMap()).containsExactlyInAnyOrderEntriesOf(Map.of("flow_id", "7", "request", "r-9"));
    }

    @Test
    void aJobInAFlowShowsItsFlowIdOverTheThreadsOwn() {
        MDC.put("flow_id", "7");
        EngineObserver.Activity m = new DeliveryMdc().running(job(99L));
        assertThat(MDC.get("flow_id")).isEqualTo("99");
        m.end("ok", null);
        assertThat(MDC.get("flow_id")).isEqualTo("7");
        assertThat(MDC.get("job_id")).isNull();
    }
}
