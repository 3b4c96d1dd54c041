package dev.converge.provisioning.mcp;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tool's answer that it did not do what was asked, and why, and what the agent can do about it.
 * It becomes a tool error result ({@code isError: true}) the agent can act on, never a protocol
 * exception it might retry (R10).
 */
public final class ToolRefusal extends RuntimeException {
    private final String code;
    private final String whatToDo;
    private final Map<String, Object> details = new LinkedHashMap<>();

    public ToolRefusal(String code, String message, String whatToDo) {
        super(message, null, false, false);
        this.code = code;
        this.whatToDo = whatToDo;
    }

    public ToolRefusal with(String key, Object value) {
        details.put(key, value);
        return this;
    }

    public String code() {
        return code;
    }

    public String whatToDo() {
        return whatToDo;
    }

    public Map<String, Object> details() {
        return details;
    }
}
