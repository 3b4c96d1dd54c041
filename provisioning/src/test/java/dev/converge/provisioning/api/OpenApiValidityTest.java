package dev.converge.provisioning.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document the server serves is valid OpenAPI 3.1 by the reference parser (swagger-parser):
 * no error or warning message, every {@code $ref} resolved. A broken document is shown to fail.
 */
class OpenApiValidityTest {

    @Test
    void theServedDocumentValidatesWithNoMessages() throws IOException {
        SwaggerParseResult r = parse(document());
        assertThat(r.getMessages()).as("validation messages").isEmpty();
        assertThat(r.getOpenAPI()).isNotNull();
        assertThat(r.getOpenAPI().getPaths()).containsKey("/v1/sites/{id}").containsKey("/v1/conversations/{id}");
    }

    @Test
    void aBrokenDocumentIsCaught() throws IOException {
        String broken = document().replace("\"#/components/schemas/Conversation\"", "\"#/components/schemas/NoSuchSchema\"")
                .replaceFirst("\"responses\"", "\"responsez\"");
        assertThat(parse(broken).getMessages()).as("the parser sees what is wrong").isNotEmpty();
    }

    private static SwaggerParseResult parse(String json) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        return new OpenAPIParser().readContents(json, null, options);
    }

    private static String document() throws IOException {
        try (InputStream in = OpsRoutes.class.getClassLoader().getResourceAsStream(OpsRoutes.OPENAPI_RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
