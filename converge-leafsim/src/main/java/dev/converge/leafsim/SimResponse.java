package dev.converge.leafsim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a simulated leaf answers, before faults get a chance to break it.
 *
 * @param body a value to serialise as JSON, or null for no body
 */
record SimResponse(int status, Object body, Map<String, String> headers) {
    SimResponse {
        headers = Map.copyOf(headers);
    }

    static SimResponse of(int status, Object body) {
        return new SimResponse(status, body, Map.of());
    }

    static SimResponse notFound() {
        return of(404, Map.of("message", "Not Found"));
    }

    SimResponse withHeader(String name, String value) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put(name, value);
        return new SimResponse(status, body, all);
    }

    boolean isSuccess() {
        return status >= 200 && status < 300;
    }
}
