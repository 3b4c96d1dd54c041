package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;

/** What the route groups share: the JSON mapper, the body reader, the idempotency protocol and the scope check. */
record ApiParts(ObjectMapper mapper, JsonBody body, IdempotentRequests idempotency, Authz authz, WriteLimits limits) {

    /** A JSON response, serialized now (so that what is stored for a key is what was sent). */
    ApiResponse json(int status, Object value, Map<String, String> headers) {
        try {
            return ApiResponse.json(status, mapper.writeValueAsString(value), headers);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response does not serialize", e);
        }
    }
}
