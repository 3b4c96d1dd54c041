package dev.converge.provisioning.mcp;

import dev.converge.provisioning.validation.PublicId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One argument of a tool, declared once: its JSON Schema and its validation come from the same
 * declaration, so what the agent is told and what the tool accepts cannot drift apart.
 */
public record ToolArg(String name, Type type, boolean mandatory, String description, String pattern, long min,
        long max, PublicId kind) {

    /** {@code ID}: a site's or lead's public id, declared as a string of that form. */
    public enum Type {
        STRING, INTEGER, ID
    }

    public static ToolArg string(String name, String description) {
        return new ToolArg(name, Type.STRING, false, description, null, 1, 200, null);
    }

    public static ToolArg integer(String name, String description) {
        return new ToolArg(name, Type.INTEGER, false, description, null, 1, Long.MAX_VALUE, null);
    }

    /**
     * A public id of {@code kind} ({@code site_...}). The database id a node of the previous release
     * gave an agent (a positive integer) is accepted too, though the schema names only the public form.
     */
    public static ToolArg id(String name, PublicId kind, String description) {
        return new ToolArg(name, Type.ID, false, description, kind.regex(), 1, 200, kind);
    }

    public ToolArg required() {
        return new ToolArg(name, type, true, description, pattern, min, max, kind);
    }

    /** For a string, its length; for an integer, its value. */
    public ToolArg range(long from, long to) {
        return new ToolArg(name, type, mandatory, description, pattern, from, to, kind);
    }

    public ToolArg pattern(String regex) {
        Pattern.compile(regex);
        return new ToolArg(name, type, mandatory, description, regex, min, max, kind);
    }

    Map<String, Object> schema() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("description", description);
        if (type == Type.ID) {
            s.put("type", "string");
            s.put("pattern", "^" + pattern + "$");
        } else if (type == Type.STRING) {
            s.put("type", "string");
            s.put("minLength", min);
            s.put("maxLength", max);
            if (pattern != null) {
                s.put("pattern", "^" + pattern + "$");
            }
        } else {
            s.put("type", "integer");
            s.put("minimum", min);
            if (max != Long.MAX_VALUE) {
                s.put("maximum", max);
            }
        }
        return s;
    }
}
