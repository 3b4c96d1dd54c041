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

    /**
     * What the parser lets pass but a linter does not: every {@code {name}} in a path is defined as
     * a path parameter of each of its operations (and no path parameter is undefined in the path),
     * every operation has a unique operationId and a response.
     */
    @Test
    void everyOperationDefinesItsPathParametersAndAnId() throws IOException {
        assertThat(lint(document())).isEmpty();
        String undefined = document().replaceFirst("\\{\\s*\"name\"\\s*:\\s*\"id\",\\s*\"in\"\\s*:\\s*\"path\"",
                "{ \"name\": \"idx\", \"in\": \"path\"");
        assertThat(lint(undefined)).as("a renamed path parameter is caught").isNotEmpty();
    }

    static java.util.List<String> lint(String json) {
        io.swagger.v3.oas.models.OpenAPI api = parse(json).getOpenAPI();
        java.util.List<String> problems = new java.util.ArrayList<>();
        java.util.Set<String> ids = new java.util.HashSet<>();
        api.getPaths().forEach((path, item) -> {
            java.util.Set<String> inPath = new java.util.TreeSet<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}]+)}").matcher(path);
            while (m.find()) {
                inPath.add(m.group(1));
            }
            item.readOperationsMap().forEach((method, op) -> {
                java.util.Set<String> defined = new java.util.TreeSet<>();
                java.util.stream.Stream.concat(
                        item.getParameters() == null ? java.util.stream.Stream.empty() : item.getParameters().stream(),
                        op.getParameters() == null ? java.util.stream.Stream.empty() : op.getParameters().stream())
                        .filter(p -> "path".equals(p.getIn())).forEach(p -> defined.add(p.getName()));
                if (!defined.equals(inPath)) {
                    problems.add(method + " " + path + ": path parameters " + defined + ", the path names " + inPath);
                }
                if (op.getOperationId() == null || !ids.add(op.getOperationId())) {
                    problems.add(method + " " + path + ": no operationId, or one used twice");
                }
                if (op.getResponses() == null || op.getResponses().isEmpty()) {
                    problems.add(method + " " + path + ": no response");
                }
            });
        });
        return problems;
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
