package dev.converge.batch.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.converge.ConvergeException;
import dev.converge.queue.internal.NewJob;

/**
 * A job stored to be enqueued later (a batch callback, a chain link, a flow's reporting hook),
 * already encoded and validated when it was defined.
 */
public record JobSpec(String queue, String kind, String payload, int maxAttempts, Long timeoutMs, long delayMs,
        String uniqueKey) {

    private static final ObjectMapper JSON = dev.converge.queue.internal.JsonCodec.shared();

    public static JobSpec of(NewJob job) {
        return new JobSpec(job.queue(), job.kind(), job.payload(), job.maxAttempts(), job.timeoutMs(), job.delayMs(),
                job.uniqueKey());
    }

    public NewJob toNewJob() {
        return new NewJob(queue, kind, payload, null, delayMs, maxAttempts, timeoutMs, uniqueKey, null, null, null, null);
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("cannot store job spec", e);
        }
    }

    public static JobSpec fromJson(String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, JobSpec.class);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("stored job spec is unreadable: " + e.getOriginalMessage(), e);
        }
    }
}
