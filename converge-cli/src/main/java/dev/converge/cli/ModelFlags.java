package dev.converge.cli;

import dev.converge.provisioning.assistant.ModelSettings;
import dev.converge.provisioning.options.DurationConverter;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The chat model the assistant's turns use, on {@code server} and {@code worker}: any server of the
 * OpenAI-compatible chat-completions API with tool calling. The key comes from
 * {@value ModelSettings#KEY_ENV} only, never from a flag (flags show in process listings).
 */
public final class ModelFlags {
    @Option(names = "--model-url", description = "Base URL of an OpenAI-compatible chat-completions API, e.g. "
            + "https://api.openai.com/v1; the key from " + ModelSettings.KEY_ENV + ". Without it no model is "
            + "connected and conversations' turns fail saying so.")
    String url;

    @Option(names = "--model", description = "The model's name at --model-url.")
    String model;

    @Option(names = "--model-steps", defaultValue = "8", description = "Model calls one turn may make (default ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--model-timeout", defaultValue = "60s", converter = DurationConverter.class,
            description = "How long one model call may take (default ${DEFAULT-VALUE}).")
    Duration callTimeout;

    @Option(names = "--turn-timeout", defaultValue = "5m", converter = DurationConverter.class,
            description = "How long one turn may run before it fails (default ${DEFAULT-VALUE}).")
    Duration turnTimeout;

    ModelSettings settings() {
        ModelSettings base = url == null ? ModelSettings.none() : ModelSettings.of(url, model);
        return base.withStepBudget(steps).withTimeouts(callTimeout, turnTimeout);
    }
}
