package dev.converge.provisioning.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Reads a request body as one JSON object, within the size limit: too large is 413 (decided from
 * Content-Length when declared, else while reading, so an endless body is never buffered), not
 * JSON is 400, JSON that is not an object is 400, a non-JSON content type is 415.
 */
final class JsonBody {
    private final ObjectMapper json;
    private final int maxBytes;

    JsonBody(ObjectMapper json, int maxBytes) {
        this.json = json;
        this.maxBytes = maxBytes;
    }

    ObjectNode read(Context ctx) {
        String type = ctx.contentType();
        if (type != null && !isJson(type)) {
            throw new ApiProblem(ProblemType.UNSUPPORTED_MEDIA_TYPE, "Send the body as application/json.");
        }
        byte[] bytes = bytes(ctx);
        if (bytes.length == 0) {
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The request body is empty; expected a JSON object.");
        }
        JsonNode node;
        try {
            node = json.readTree(bytes);
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new ApiProblem(ProblemType.MALFORMED_JSON, "The request body is not valid JSON" + where + ".");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new ApiProblem(ProblemType.INVALID_BODY, "The request body must be a JSON object.");
        }
        return object;
    }

    private byte[] bytes(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) {
            throw tooLarge();
        }
        try (InputStream in = ctx.bodyInputStream()) {
            byte[] read = in.readNBytes(maxBytes + 1);
            if (read.length > maxBytes) {
                throw tooLarge();
            }
            return read;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ApiProblem tooLarge() {
        return new ApiProblem(ProblemType.PAYLOAD_TOO_LARGE, "The request body exceeds " + maxBytes + " bytes.")
                .with("max_bytes", maxBytes);
    }

    private static boolean isJson(String contentType) {
        String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        return media.equals("application/json") || (media.startsWith("application/") && media.endsWith("+json"));
    }
}
