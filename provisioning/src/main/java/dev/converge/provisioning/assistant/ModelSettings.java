package dev.converge.provisioning.assistant;

import java.time.Duration;
import java.util.Objects;

/**
 * Which chat model the assistant's turns talk to: any server of the OpenAI-compatible
 * chat-completions API with tool calling. The key comes from the environment only
 * ({@value #KEY_ENV}); {@link #toString()} never shows it, and it is never logged or stored.
 *
 * @param baseUrl     the API's base URL, e.g. {@code https://api.openai.com/v1}; null when no model is connected
 * @param model       the model's name
 * @param stepBudget  model calls one turn may make before it stops
 * @param callTimeout how long one model call may take
 * @param turnTimeout how long a whole turn may run; past it the turn fails
 */
public record ModelSettings(String baseUrl, String model, ModelKey key, int stepBudget, Duration callTimeout,
        Duration turnTimeout) {
    public static final String KEY_ENV = "CONVERGE_MODEL_API_KEY";

    public ModelSettings {
        if (baseUrl != null && !baseUrl.startsWith("http://") && !baseUrl.startsWith("https://")) {
            throw new IllegalArgumentException("the model's base URL must be an http(s) URL");
        }
        if (baseUrl != null && (model == null || model.isBlank())) {
            throw new IllegalArgumentException("name the model (--model) when a model URL is set");
        }
        if (stepBudget < 1 || stepBudget > 100) {
            throw new IllegalArgumentException("the step budget must be between 1 and 100");
        }
        Objects.requireNonNull(callTimeout, "callTimeout");
        Objects.requireNonNull(turnTimeout, "turnTimeout");
        if (callTimeout.isNegative() || callTimeout.isZero() || turnTimeout.compareTo(callTimeout) < 0) {
            throw new IllegalArgumentException("timeouts must be positive, the turn's at least one call's");
        }
    }

    /** No model connected: a turn fails at once, saying how to connect one. */
    public static ModelSettings none() {
        return new ModelSettings(null, null, null, 8, Duration.ofSeconds(60), Duration.ofMinutes(5));
    }

    /** A model at {@code baseUrl}, the key read from {@value #KEY_ENV} (none if unset: a local server may need none). */
    public static ModelSettings of(String baseUrl, String model) {
        String key = System.getenv(KEY_ENV);
        return new ModelSettings(baseUrl, model, key == null || key.isBlank() ? null : ModelKey.of(key), 8,
                Duration.ofSeconds(60), Duration.ofMinutes(5));
    }

    public ModelSettings withKey(ModelKey k) {
        return new ModelSettings(baseUrl, model, k, stepBudget, callTimeout, turnTimeout);
    }

    public ModelSettings withStepBudget(int steps) {
        return new ModelSettings(baseUrl, model, key, steps, callTimeout, turnTimeout);
    }

    public ModelSettings withTimeouts(Duration call, Duration turn) {
        return new ModelSettings(baseUrl, model, key, stepBudget, call, turn);
    }

    public boolean connected() {
        return baseUrl != null;
    }

    @Override
    public String toString() {
        return "ModelSettings[" + (baseUrl == null ? "no model" : model + " at " + baseUrl) + ", key "
                + (key == null ? "none" : "set") + ", " + stepBudget + " steps]";
    }
}
