package dev.converge.provisioning.mcp;

import dev.converge.provisioning.validation.InvalidField;
import dev.converge.provisioning.validation.PublicId;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** A tool's arguments: the input schema it publishes, and the validation of what an agent sent. */
public final class ToolArgs {
    private final Map<String, ToolArg> args = new LinkedHashMap<>();

    public ToolArgs(List<ToolArg> list) {
        for (ToolArg a : list) {
            if (args.put(a.name(), a) != null) {
                throw new IllegalArgumentException("argument " + a.name() + " is declared twice");
            }
        }
    }

    public boolean has(String name) {
        return args.containsKey(name);
    }

    /** The JSON Schema of the arguments: an object of exactly these properties. */
    public Map<String, Object> schema() {
        Map<String, Object> props = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (ToolArg a : args.values()) {
            props.put(a.name(), a.schema());
            if (a.mandatory()) {
                required.add(a.name());
            }
        }
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", props);
        s.put("required", required);
        s.put("additionalProperties", false);
        return s;
    }

    /** Checks what was sent against the declaration; the first problem is thrown naming its field. */
    public Arguments validate(Map<String, Object> sent) {
        Map<String, Object> in = sent == null ? Map.of() : sent;
        for (String name : in.keySet()) {
            if (!args.containsKey(name)) {
                throw new InvalidField(name, "is not an argument of this tool (its arguments: "
                        + String.join(", ", args.keySet()) + ")");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (ToolArg a : args.values()) {
            Object v = in.get(a.name());
            if (v == null) {
                if (a.mandatory()) {
                    throw new InvalidField(a.name(), "is required");
                }
                continue;
            }
            out.put(a.name(), switch (a.type()) {
                case STRING -> string(a, v);
                case INTEGER -> integer(a, v);
                case ID -> ref(a, v);
            });
        }
        return new Arguments(out);
    }

    private static String string(ToolArg a, Object v) {
        if (!(v instanceof String s)) {
            throw new InvalidField(a.name(), "must be a string");
        }
        if (s.length() < a.min() || s.length() > a.max()) {
            throw new InvalidField(a.name(), "must be " + a.min() + "-" + a.max() + " characters long");
        }
        if (a.pattern() != null && !Pattern.matches(a.pattern(), s)) {
            throw new InvalidField(a.name(), "must match " + a.pattern());
        }
        return s;
    }

    private static PublicId.Ref ref(ToolArg a, Object v) {
        if (v instanceof String s && a.kind().matches(s)) {
            return new PublicId.Ref(s, 0);
        }
        if (v instanceof Number) {
            try {
                return new PublicId.Ref(null, integer(a, v));
            } catch (InvalidField e) {
                // not a positive integer either: answered below
            }
        }
        throw new InvalidField(a.name(), a.kind().expected());
    }

    private static long integer(ToolArg a, Object v) {
        long n;
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            n = ((Number) v).longValue();
        } else if (v instanceof Number num) {
            try {
                n = new BigDecimal(num.toString()).longValueExact(); // 12.0 is 12; 12.5 and 2^70 are not integers here
            } catch (ArithmeticException | NumberFormatException e) {
                throw new InvalidField(a.name(), "must be an integer");
            }
        } else {
            throw new InvalidField(a.name(), "must be an integer");
        }
        if (n < a.min() || n > a.max()) {
            throw new InvalidField(a.name(), a.max() == Long.MAX_VALUE ? "must be at least " + a.min()
                    : "must be between " + a.min() + " and " + a.max());
        }
        return n;
    }

    /** Validated arguments, by name. */
    public record Arguments(Map<String, Object> values) {
        public String string(String name) {
            return (String) values.get(name);
        }

        public Long integer(String name) {
            return (Long) values.get(name);
        }

        public PublicId.Ref ref(String name) {
            return (PublicId.Ref) values.get(name);
        }
    }
}
