package dev.converge.queue.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.converge.ConvergeException;

/** Job payloads to and from JSON. Enqueue checks the round trip so a bad payload fails there, not in a worker. */
public final class JsonCodec {
    private final ObjectMapper mapper;

    public JsonCodec() {
        this.mapper = new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    /** Serializes a payload and proves it reads back as its type. */
    public String write(Object payload, Class<?> type, String kind) {
        String json;
        try {
            json = mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("payload of job type " + kind + " does not serialize to JSON: "
                    + e.getOriginalMessage(), e);
        }
        read(json, type, kind);
        return json;
    }

    public <T> T read(String json, Class<T> type, String kind) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new ConvergeException("payload of job type " + kind + " does not deserialize as "
                    + type.getName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
