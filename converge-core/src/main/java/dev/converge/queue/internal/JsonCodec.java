package dev.converge.queue.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.converge.ConvergeException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Job payloads to and from JSON. Enqueue checks the round trip so a bad payload fails there, not in a
 * worker. Readers and writers are kept per payload type: looking them up on every call cost more
 * than the (tiny) payloads themselves on the enqueue and fetch paths.
 */
public final class JsonCodec {
    /**
     * The engine's one JSON configuration, for payloads and everything it stores as JSON (leaf data,
     * chain links, job specs): java.time types as ISO-8601 text, nanoseconds kept, unknown fields ignored.
     */
    private static final ObjectMapper SHARED = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final ObjectMapper mapper;
    private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();
    private final Map<Class<?>, ObjectWriter> writers = new ConcurrentHashMap<>();

    public JsonCodec() {
        this.mapper = SHARED;
    }

    /** The shared configuration; not to be reconfigured by callers. */
    public static ObjectMapper shared() {
        return SHARED;
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    /** Serializes a payload and proves it reads back as its type. */
    public String write(Object payload, Class<?> type, String kind) {
        String json;
        try {
            json = writers.computeIfAbsent(payload.getClass(), mapper::writerFor).writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("payload of job type " + kind + " does not serialize to JSON: "
                    + e.getOriginalMessage(), e);
        }
        read(json, type, kind);
        return json;
    }

    public <T> T read(String json, Class<T> type, String kind) {
        try {
            return readers.computeIfAbsent(type, mapper::readerFor).readValue(json);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("payload of job type " + kind + " does not deserialize as "
                    + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
