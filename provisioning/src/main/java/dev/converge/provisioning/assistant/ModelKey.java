package dev.converge.provisioning.assistant;

import java.util.Objects;

/**
 * The model API's key. Its {@link #toString()} is redacted and its value is read only where the
 * client is built, so it cannot end up in a log line, an error or a stored transcript by accident;
 * {@link #scrub} removes it from any text that came back from the model's server.
 */
public final class ModelKey {
    private final String value;

    private ModelKey(String value) {
        this.value = value;
    }

    public static ModelKey of(String value) {
        Objects.requireNonNull(value, "key");
        if (value.isBlank() || value.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw new IllegalArgumentException("a model API key must be non-blank, without whitespace or control characters");
        }
        return new ModelKey(value);
    }

    String reveal() {
        return value;
    }

    /** The text with every occurrence of the key replaced. */
    String scrub(String text) {
        return text == null ? null : text.replace(value, "<redacted>");
    }

    @Override
    public String toString() {
        return "ModelKey[<redacted>]";
    }
}
