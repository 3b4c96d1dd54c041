package dev.converge.provisioning.idempotency;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What makes two requests "the same" for an idempotency key: SHA-256 over the operation and the
 * canonical JSON of the body (parsed, object keys sorted, no whitespace), so that whitespace and
 * key order do not turn a retry into a "different payload".
 */
public final class RequestFingerprint {
    private RequestFingerprint() {
    }

    /**
     * @param operation what the body is for (e.g. {@code POST /v1/sites}): the same body sent to
     *                  another operation under the same key is a different request
     */
    public static String of(ObjectMapper json, String operation, JsonNode body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(operation.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
            sha.update(canonical(json, body));
            return java.util.HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The canonical JSON bytes of a tree: object keys sorted at every level, compact. */
    public static byte[] canonical(ObjectMapper json, JsonNode node) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            write(g, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, JsonNode node) throws IOException {
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(node.properties());
            fields.sort(Map.Entry.comparingByKey());
            g.writeStartObject();
            for (Map.Entry<String, JsonNode> f : fields) {
                g.writeFieldName(f.getKey());
                write(g, f.getValue());
            }
            g.writeEndObject();
        } else if (node.isArray()) {
            g.writeStartArray();
            for (JsonNode item : node) {
                write(g, item);
            }
            g.writeEndArray();
        } else {
            g.writeTree(node);
        }
    }
}
